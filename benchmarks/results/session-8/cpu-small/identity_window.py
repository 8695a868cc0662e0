"""The suitesparse rows of identity.py at 1 thread with the warm-up's window forced on
(``_warmup.compiling`` True: MIS-2's statuses by numpy, not their kernel); compared with
identity-cb2ba9a.json. usage: identity_window.py"""
import json, pathlib, sys
import numba
import scipy.sparse as sp
import gbgraph as gg
from gbgraph import _warmup
from gbgraph.errors import AsymmetricGraphError

here = pathlib.Path(__file__).parent
sys.path.insert(0, str(here.parents[2]))  # benchmarks/, for common.matrix
sys.argv = [sys.argv[0], "/dev/null"]
src = (here / "identity.py").read_text()
namespace = {}
exec(src.split("graphs = {p.split")[0], namespace)  # h() and generated()
h, generated = namespace["h"], namespace["generated"]
from common import matrix

_warmup.compiling = lambda: True
numba.set_num_threads(1); gg.backends.set_threads(1)
expected = json.loads((here / "identity-cb2ba9a.json").read_text())
graphs = {p.name: str(p) for p in sorted(pathlib.Path("/work/shared/data").glob("*.mtx.gz"))}
graphs.update(generated())
same = differ = 0
for name, M in graphs.items():
    if isinstance(M, str):
        M = sp.csr_array(matrix(M))
    try:
        gg.as_graph(M)
    except AsymmetricGraphError:
        M = gg.symmetrize(M)
    G = gg.as_graph(M)
    a = gg.aggregate(G, backend="suitesparse")
    for row, value in (("mis2(A)", h(gg.mis2(M, backend="suitesparse").vertices)),
                       ("mis2(G)", h(gg.mis2(G, backend="suitesparse").vertices)), ("aggregate", h(a.labels, a.roots))):
        ok = expected[f"{name}:1:suitesparse:{row}"] == value
        same += ok
        differ += not ok
print(f"{same} equal, {differ} different, of {same + differ} (28 graphs x 3 rows)")
