"""Cut and Jet rounds per level of ``gg.bisect(A, refine="jet", tries=1)`` (numba), 9009bd3's
rule ("single": one run per level) against this branch's (``refine_jet.SCHEDULE``: coarse
levels run at c = 0.75 then 0.25), beside hec+fm's cut per level (one try, the same
hierarchy and initial bisection). Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-14/cut41/levels.py \\
        usroads.mtx.gz laplace3d:100
"""

import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

import sweep  # noqa: E402  (puts benchmarks/ on the path)
from common import matrix  # noqa: E402
from gbgraph.algorithms import partition as P, refine_jet as J  # noqa: E402

import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402


def _cut(indptr, indices, weights, sides):
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    return float(weights[sides[rows] != sides[indices]].sum() / 2)


def main():
    log = []
    fm_level = P.refine_projected

    def fm_spy(hg, parts, *args):
        key, ext = fm_level(hg, parts, *args)
        log.append((hg.n, [], key[1]))
        return key, ext

    class Rounds(J._Rounds):
        def __init__(self, *args):
            super().__init__(*args)
            log[-1][1].append(self)

    def jet_spy(be, level, vertex_weights, sides, *args):
        log.append((level.n, [], None))
        sides = jet_level(be, level, vertex_weights, sides, *args)
        g = level.graph
        weights = np.ones(g.indices.size) if g.weights is None else np.asarray(g.weights)
        log[-1] = (level.n, [r.rounds for r in log[-1][1]],
                   _cut(np.asarray(g.indptr), np.asarray(g.indices), weights, np.asarray(sides)))
        return sides

    P.refine_projected = fm_spy
    for spec in sys.argv[1:]:
        spec = spec if ":" in spec else f"/work/shared/data/{spec}"
        G = gg.as_graph(largest_component(matrix(spec)))
        table = {}
        for config in ("fm1", "single", "base"):
            log.clear()
            if config != "fm1":
                sweep.run(config, G, 2)  # sets the module's rules for this config
                jet_level = J._refine_level
                J._refine_level, J._Rounds = jet_spy, Rounds
            r = gg.partition(G, 2, refine="fm" if config == "fm1" else "jet", tries=1, backend="numba")
            if config != "fm1":
                J._refine_level, J._Rounds = jet_level, Rounds.__base__
            table[config] = ({n: (rounds, cut) for n, rounds, cut in log}, r.cut)
        print(f"{pathlib.Path(spec).name}: cut fm1 {table['fm1'][1]:g}, single {table['single'][1]:g}, "
              f"schedule {table['base'][1]:g}")
        print(f"{'level n':>9s} {'fm1 cut':>8s} {'single rounds':>13s} {'cut':>8s} {'schedule rounds':>16s} {'cut':>8s}")
        for n in sorted(table["single"][0]):  # coarsest first, as refined
            fm = table["fm1"][0].get(n, (None, float("nan")))[1]
            (r1, c1), (r2, c2) = table["single"][0][n], table["base"][0][n]
            print(f"{n:9d} {fm:8g} {'+'.join(map(str, r1)):>13s} {c1:8g} {'+'.join(map(str, r2)):>16s} {c2:8g}")


if __name__ == "__main__":
    main()
