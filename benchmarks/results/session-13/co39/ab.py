"""A/B of gg.as_graph(scipy A), gg.mis2(A), gg.mis2(G), gg.aggregate(G) and gg.coarsen(G) (numba) between two trees, each
run in a process of its own, the trees alternated ``--rounds`` times per thread count, on the
four graphs of issue 39; scipy's SpMV (A @ x, float64) timed in every process beside them.
Each figure: the minimum (and median) of --repeat calls after one, process CPU time and wall
time both recorded; the load average printed before every process.

    python ab.py --trees /work/main/.old /work/wt/co39 --threads 1 --rounds 3 --json ab.json
    (session 11's asg39/ab.py with coarsen; gbgraph's threads set with set_threads)
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPHS = ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz",
          "/work/shared/data/delaunay_n17.mtx.gz"]

CHILD = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np, scipy.sparse as sp
from common import matrix
import gbgraph as gg
gg.backends.set_threads(int(sys.argv[4]))
repeat = int(sys.argv[2]); wanted = sys.argv[3].split(",")
out = {"gbgraph": gg.__file__}
def times(fn, k):
    fn(); cpu, wall = [], []
    for _ in range(k):
        c, w = time.process_time(), time.perf_counter(); fn()
        cpu.append(1e3 * (time.process_time() - c)); wall.append(1e3 * (time.perf_counter() - w))
    return {"cpu": [min(cpu), float(np.median(cpu))], "wall": [min(wall), float(np.median(wall))]}
for spec in sys.argv[5:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    G = gg.as_graph(A)
    row = {"spmv": times(lambda: A @ x, 30)}
    for name, fn in (("as_graph", lambda: gg.as_graph(A)), ("mis2(A)", lambda: gg.mis2(A, backend="numba")),
                     ("mis2(G)", lambda: gg.mis2(G, backend="numba")),
                     ("aggregate", lambda: gg.aggregate(G, backend="numba")),
                     ("coarsen", lambda: gg.coarsen(G, backend="numba"))):
        if name in wanted:
            row[name] = times(fn, repeat)
    out[spec.split("/")[-1]] = row
print(json.dumps(out))
'''


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trees", nargs=2, default=["/work/main/.old", os.path.abspath(os.path.join(HERE, "../../../.."))])
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--graphs", nargs="+", default=GRAPHS)
    p.add_argument("--rows", default="as_graph,mis2(A),mis2(G),aggregate,coarsen")
    p.add_argument("--json")
    args = p.parse_args()
    bench = os.path.abspath(os.path.join(HERE, "../../.."))  # benchmarks/, for common.py
    runs = []
    for threads in args.threads:
        for r in range(args.rounds):
            for tree in args.trees:
                load = open("/proc/loadavg").read().strip()
                env = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
                done = subprocess.run([sys.executable, "-c", CHILD, bench, str(args.repeat), args.rows, str(threads), *args.graphs],
                                      env=env, capture_output=True, text=True, check=True, cwd="/")  # not the tree's own gbgraph
                result = json.loads(done.stdout.strip().splitlines()[-1])
                runs.append({"tree": tree, "threads": threads, "round": r, "load": load, "result": result})
                clock = "cpu" if threads == 1 else "wall"
                line = [f"{os.path.basename(tree.rstrip('/'))} t={threads} r={r} load {load.split()[0]} ({clock})"]
                for g, row in result.items():
                    if g == "gbgraph":
                        continue
                    s = row["spmv"][clock][0]
                    line.append(f"{g[:12]}: SpMV {s:.2f} ms, " + ", ".join(
                        f"{k} {row[k][clock][0]:.1f} = {row[k][clock][0] / s:.2f} ({row[k][clock][1] / s:.2f})"
                        for k in args.rows.split(",")))
                print(" | ".join(line), flush=True)
                if args.json:
                    json.dump(runs, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
