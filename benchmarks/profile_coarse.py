"""The numba backend's coarse-graph construction (``coarse_by_sort``, P A Pᵀ) on its real inputs.

``capture`` runs ``coarsen`` (MIS-2 and HEC) and ``gg.partition(A, 2)`` on each graph with the
kernel wrapped, and saves the input level's call of each (CSR, labels, k, weights, one-sided
or not) to ``DIR/<graph>-<mis2|hec|part>.npz``. ``time`` calls the kernel on the saved inputs
on one thread: the median CPU time of --repeat calls after an untimed one, with the page
faults and the kernel's (system) share of each call, which is where the time of the first
levels went. Run ``time`` on old and new trees in turn (PYTHONPATH) for an A/B, and
``--hash`` to compare their CSR arrays bit for bit.

    python benchmarks/profile_coarse.py capture /tmp/coarse laplace3d:100 ../shared/data/coAuthorsDBLP.mtx.gz
    python benchmarks/profile_coarse.py time /tmp/coarse --repeat 7 [--threads 2] [--hash]
"""

import argparse
import hashlib
import pathlib
import resource
import time
import warnings

import numpy as np

import gbgraph as gg
from gbgraph.backends.numba.kernels import coarse
from common import graph_name, matrix


def capture(folder, specs):
    calls = []
    kernel = coarse.coarse_by_sort

    def recorded(indptr, indices, labels, k, weights=None, low_degree_end=False):
        calls.append(dict(indptr=indptr, indices=indices, labels=labels.copy(), k=k, weighted=weights is not None,
                          weights=np.zeros(0) if weights is None else weights.copy(), lde=low_degree_end))
        return kernel(indptr, indices, labels, k, weights, low_degree_end)

    coarse.coarse_by_sort = recorded
    folder.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        A = matrix(spec).tocsr()
        G = gg.as_graph(A)
        runs = {"mis2": lambda: gg.coarsen(G, backend="numba"), "hec": lambda: gg.coarsen(G, "hec", backend="numba"),
                "part": lambda: gg.partition(A, 2)}
        for tag, run in runs.items():
            calls.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run()
            first = max(calls, key=lambda c: c["indices"].size)  # the input level's (partition: the first try's)
            np.savez(folder / f"{graph_name(spec).replace(':', '')}-{tag}.npz", **first)
            print(f"{graph_name(spec)} {tag}: {len(calls)} constructions, input level k = {first['k']}", flush=True)


def timed(folder, repeat, threads, hashes):
    gg.backends.set_threads(threads)
    for path in sorted(folder.glob("*.npz")):
        d = np.load(path)
        args = (d["indptr"], d["indices"], d["labels"], int(d["k"]), d["weights"] if d["weighted"] else None,
                bool(d["lde"]))
        result = coarse.coarse_by_sort(*args)
        ms, faults, system = [], [], []
        for _ in range(repeat):
            before, start = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
            coarse.coarse_by_sort(*args)
            ms.append(1e3 * (time.process_time() - start))
            after = resource.getrusage(resource.RUSAGE_SELF)
            faults.append(after.ru_minflt - before.ru_minflt)
            system.append(1e3 * (after.ru_stime - before.ru_stime))
        line = (f"{path.stem}: nnz {d['indices'].size:,} k {int(d['k']):,} coarse nnz {result[1].size:,} | "
                f"{np.median(ms):.1f} ms CPU (min {min(ms):.1f}), {np.median(faults):.0f} page faults, "
                f"{np.median(system):.1f} ms system")
        if hashes:
            h = hashlib.sha1()
            for x in result:
                h.update(str(x.dtype).encode())
                h.update(np.ascontiguousarray(x).tobytes())
            line += f" | sha1 {h.hexdigest()[:16]}"
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["capture", "time"])
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("graphs", nargs="*", help="capture: GRAPH specs (laplace3d:100, a .mtx.gz path)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--hash", action="store_true", help="print a hash of each result's CSR arrays")
    args = parser.parse_args()
    if args.mode == "capture":
        capture(args.folder, args.graphs)
    else:
        timed(args.folder, args.repeat, args.threads, args.hash)


if __name__ == "__main__":
    main()
