"""A/B of aggregate, coarsen (MIS-2) and the HEC hierarchy: the tree at 079f126
(/work/main/.old) against this branch, alternated, one thread, process CPU time.

Each round runs both trees, one after the other (order swapped every round), in fresh
processes (``measure``); each process times scipy's SpMV (minimum of 30 calls) and each
call (minimum and median of --repeat calls after an untimed one) as
``benchmarks/bench_cpu_rounds.py --threads 1 --clock cpu`` does, and prints JSON.

usage: python ab.py OUT.json [--rounds 3] [--repeat 7] [graph specs...]
"""
import json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
NEW = os.path.abspath(os.path.join(HERE, "../../../.."))
OLD = "/work/main/.old"
ROWS = ("aggregate", "coarsen", "hec hierarchy")


def measure(spec, repeat):
    sys.path.insert(0, os.path.join(NEW, "benchmarks"))
    import numba, numpy as np, scipy.sparse as sp
    numba.set_num_threads(1)
    import gbgraph as gg
    gg.backends.set_threads(1)
    from common import matrix
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
    calls = {"aggregate": lambda: gg.aggregate(G, backend="numba"), "coarsen": lambda: gg.coarsen(G, backend="numba"),
             "hec hierarchy": lambda: gg.coarsen(G, "hec", backend="numba")}

    def times(fn, n):
        fn(); out = []
        for _ in range(n):
            t = time.process_time(); fn(); out.append(time.process_time() - t)
        return 1e3 * min(out), 1e3 * float(np.median(out))

    row = {"spmv_ms": times(lambda: A @ x, 30)[0], "gbgraph": gg.__file__, "load": os.getloadavg()}
    for name in ROWS:
        row[name], row[name + " median"] = times(calls[name], repeat)
    print(json.dumps(row))


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 7
    specs = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--rounds", "--repeat"))]
    specs = specs or ["/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]
    results = []
    for spec in specs:
        for r in range(rounds):
            for tree, label in ((OLD, "before"), (NEW, "after"))[::1 if r % 2 == 0 else -1]:
                env = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
                line = subprocess.run([sys.executable, __file__, "--measure", spec, str(repeat)], env=env, check=True,
                                      capture_output=True, text=True).stdout.strip().splitlines()[-1]
                row = dict(json.loads(line), graph=os.path.basename(spec), tree=label, round=r)
                results.append(row)
                print(f"{row['graph']:22s} {label:6s} round {r} load {row['load'][0]:.1f} SpMV {row['spmv_ms']:.2f} ms | " + " | ".join(
                    f"{n} {row[n]:.1f} ms = {row[n] / row['spmv_ms']:.1f} ({row[n + ' median'] / row['spmv_ms']:.1f})" for n in ROWS),
                      flush=True)
    json.dump(results, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "--measure":
        measure(sys.argv[2], int(sys.argv[3]))
    else:
        main()
