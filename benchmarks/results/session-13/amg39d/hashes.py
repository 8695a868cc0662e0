"""Session 12's hashes.py (every level's A, P, R arrays and dtypes, B, CG's residuals and
solution) with Laplace3D 100³ added to its problems."""
import pathlib

source = (pathlib.Path(__file__).resolve().parents[2] / "session-12" / "amg39c" / "hashes.py").read_text()
last = '("elasticity3d:40", gg.generators.elasticity3d(40))]'
assert last in source
exec(source.replace(last, last[:-1] + ', ("laplace3d:100", gg.generators.laplace3d(100))]'))
