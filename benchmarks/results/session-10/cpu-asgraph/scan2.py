"""The canonical pass alone (kernels/canonical.py's scan_rows) of two trees, imported side by
side in one process and alternated, at the thread count numba is given: wall and process
CPU time, minimum and median of --calls calls, beside scipy's SpMV; the load average printed.

    NUMBA_NUM_THREADS=2 python scan2.py /work/main/.old /work/wt/cpu39
"""
import argparse, importlib, os, statistics, sys, time
import numpy as np, scipy.sparse as sp

GRAPHS = ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz",
          "/work/shared/data/delaunay_n17.mtx.gz"]


def load(tree, name):
    """The tree's canonical.py as a module of its own (its package's threads module from the
    tree that runs: the same in both)."""
    path = os.path.join(tree, "gbgraph/backends/numba/kernels/canonical.py")
    source = open(path).read().replace("from .threads import", "from gbgraph.backends.numba.kernels.threads import")
    folder = os.path.join("/tmp", f"scan2-{name}")
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, f"canonical_{name}.py"), "w").write(source)
    sys.path.insert(0, folder)  # importable by name: numba's cache reloads the module
    return importlib.import_module(f"canonical_{name}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trees", nargs=2)
    p.add_argument("--calls", type=int, default=15)
    args = p.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
    from common import matrix
    from gbgraph._malloc import keep_freed_blocks
    import numba
    keep_freed_blocks()
    mods = [load(t, str(k)) for k, t in enumerate(args.trees)]
    print(open("/proc/loadavg").read().strip(), "threads", numba.get_num_threads())
    for spec in GRAPHS:
        A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
        closed = bool(A.diagonal().all())
        cases = {"check": (A.indptr, A.indices, None, False, False), "copy+values": (A.indptr, A.indices, A.data, closed, False),
                 "closed pattern": (A.indptr, A.indices, None, closed, not closed)}
        w = []
        for _ in range(30):
            s = time.perf_counter(); A @ x; w.append(time.perf_counter() - s)
        spmv = 1e3 * min(w)
        line = [f"{spec.split('/')[-1][:14]} load {open('/proc/loadavg').read().split()[0]} SpMV {spmv:.2f} ms"]
        for name, a in cases.items():
            res = [([], []) for _ in mods]
            for m in mods:
                m.scan_rows(*a)
            for _ in range(args.calls):
                for m, (wall, cpu) in zip(mods, res):
                    s, c = time.perf_counter(), time.process_time(); m.scan_rows(*a)
                    wall.append(1e3 * (time.perf_counter() - s)); cpu.append(1e3 * (time.process_time() - c))
            line.append(f"{name}: wall " + " -> ".join(f"{min(wl):.2f} ({statistics.median(wl):.2f})" for wl, _ in res)
                        + ", cpu " + " -> ".join(f"{min(c):.2f}" for _, c in res))
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
