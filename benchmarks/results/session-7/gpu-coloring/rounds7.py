# per-round time of the compiled rounds: each round launched alone (check = 1), cupy events
import sys, cupy, numpy as np
import cupyx.scipy.sparse as cs
import gbgraph as gg
from gbgraph.generators import laplace3d
from gbgraph.backends.cupy import program
size = int(sys.argv[2])
G = gg.as_graph(cs.csr_matrix(laplace3d(size).astype(np.float64)))
f = {"mis2": lambda: gg.mis2(G, backend="cupy"), "color": lambda: gg.color(G, backend="cupy")}[sys.argv[1]]
f()
orig = program._Program.run
def run(self, state, first, stop, check, stall=None):
    k, times = self._kernel, []
    def timed(grid, block, args):
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record(); k(grid, block, args); b.record(); b.synchronize()
        times.append(cupy.cuda.get_elapsed_time(a, b) * 1e3)
    self._kernel = timed
    sizes = []
    def each(s, r):
        sizes.append(int(s[0].entry_count()))
        return 1 if check is None else check(s, r)
    out = orig(self, state, first, stop, each, stall)
    self._kernel = k
    print(sys.argv[1], size, "rounds", first, "..", out[1], "per round us:", " ".join(f"{t:.0f}({m})" for t, m in zip(times, sizes)))
    return out
program._Program.run = run
f()
