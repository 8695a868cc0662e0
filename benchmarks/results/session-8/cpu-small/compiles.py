import sys, time, os
import numba.core.dispatcher as d
log = []
orig = d.Dispatcher.compile
depth = [0]
def compile(self, sig):
    t = time.perf_counter(); depth[0] += 1
    try:
        return orig(self, sig)
    finally:
        depth[0] -= 1
        log.append((time.perf_counter() - t, depth[0], f"{self.py_func.__module__}.{self.py_func.__qualname__}", str(sig)[:120]))
d.Dispatcher.compile = compile
spec = sys.argv[1] if len(sys.argv) > 1 else "laplace3d:50"
t0 = time.process_time()
sys.argv = ['gbgraph', 'mis2', spec]
from gbgraph.cli import main
try:
    main()
except SystemExit:
    pass
print("process cpu", time.process_time() - t0, file=sys.stderr)
for t, dep, name, sig in log:
    if dep == 0:
        print(f"{t:6.3f} {dep} {name} {sig}", file=sys.stderr)
print("top-level compile total", sum(t for t, dep, *_ in log if dep == 0), file=sys.stderr)
