"""The numba backend's coarse-graph construction (``coarse_by_sort``, P A Pᵀ) on its real inputs;
and (``gpu``) where a GPU bisection's coarsening spends its time, level by level.

``capture`` runs ``coarsen`` (MIS-2 and HEC) and ``gg.partition(A, 2)`` on each graph with the
kernel wrapped, and saves the input level's call of each (CSR, labels, k, weights, one-sided
or not) to ``DIR/<graph>-<mis2|hec|part>.npz``. ``time`` calls the kernel on the saved inputs
on one thread: the median CPU time of --repeat calls after an untimed one, with the page
faults and the kernel's (system) share of each call, which is where the time of the first
levels went. Run ``time`` on old and new trees in turn (PYTHONPATH) for an A/B, and
``--hash`` to compare their CSR arrays bit for bit.

    python benchmarks/profile_coarse.py capture /tmp/coarse laplace3d:100 ../shared/data/coAuthorsDBLP.mtx.gz
    python benchmarks/profile_coarse.py time /tmp/coarse --repeat 7 [--threads 2] [--hash]

``gpu`` (CuPy and an NVIDIA GPU) coarsens each graph's largest component as
``gg.bisect(G, refine="jet")`` does (capped HEC on --backend, the small levels on the
host) with every step synchronised: per level, where it ran, the mapping's parts (heavy
neighbours, visit, roots, the cap's overflow, the rest), the coarse graph's construction,
the cap's check after a fused HEC (``within``), the coarse vertex weights and the moves
between host and device (the move to the host is
counted on the level before the first host level, the move back on the last; the fastest
of --repeat runs, per part); then the hierarchy unsynchronised, and with ``--profile``, a cProfile of
one unsynchronised hierarchy of the first graph.

    python benchmarks/profile_coarse.py gpu - laplace3d:100 data/coAuthorsDBLP.mtx.gz --backend native --json out.json
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


class _Timed:
    """Patches ``module.name`` so that each call is timed, the device synchronised before
    and after, into the current level's row under ``part``."""

    def __init__(self, rows, sync):
        self.rows, self.sync, self.saved = rows, sync, []

    def patch(self, module, name, part, new_level=False):
        original = getattr(module, name)
        self.saved.append((module, name, original))

        def timed(*args, **kwargs):
            if new_level:
                self.rows.append({})
            self.sync()
            start = time.perf_counter()
            result = original(*args, **kwargs)
            self.sync()
            row = self.rows[-1] if self.rows else {}
            row[part] = row.get(part, 0.0) + 1e3 * (time.perf_counter() - start)
            return result

        setattr(module, name, timed)

    def restore(self):
        for module, name, original in reversed(self.saved):
            setattr(module, name, original)


_PARTS = ("map", "heavy", "visit", "roots", "overflow", "within", "build", "weights", "to_host", "to_device")


def gpu(specs, repeat, profile, json_path, backend, host_entries):
    import cProfile
    import io
    import json
    import pstats

    import cupy
    import cupyx.scipy.sparse as csp
    from bench_partition import largest_component

    from gbgraph.algorithms import coarsen, heavy, partition

    if host_entries is not None:
        coarsen.HOST_LEVEL_ENTRIES = host_entries
    sync = cupy.cuda.Device().synchronize
    out = []
    for spec in specs:
        A = largest_component(matrix(spec))
        G = csp.csr_matrix(A.astype("float64"))
        cap = partition.COARSE_CAP * A.shape[0] / 2

        def hierarchy():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return gg.coarsen(G, "hec", max_weight=max(cap, 1.0), backend=backend)

        gg.bisect(G, refine="jet", tries=1)  # compile and cache
        hierarchy()
        sync()
        best = None
        for _ in range(repeat):
            rows = []
            timer = _Timed(rows, sync)
            timer.patch(coarsen, "map_vertices", "map", new_level=True)
            timer.patch(heavy, "heavy_targets", "heavy")
            timer.patch(heavy, "visit_in_order", "visit")
            timer.patch(heavy, "roots_and_labels", "roots")
            timer.patch(heavy, "_overflow", "overflow")
            timer.patch(heavy, "within_cap", "within")
            timer.patch(coarsen, "_coarse_level", "build")
            timer.patch(coarsen, "coarse_weights", "weights")
            timer.patch(coarsen, "_on_host", "to_host")
            timer.patch(coarsen, "_on_device", "to_device")
            try:
                h = hierarchy()
            finally:
                timer.restore()
            best = rows if best is None else [{p: min(a.get(p, 0.0), b.get(p, 0.0)) for p in _PARTS}
                                              for a, b in zip(best, rows)]
        plain = []
        for _ in range(repeat):
            sync()
            start = time.perf_counter()
            hierarchy()
            sync()
            plain.append(1e3 * (time.perf_counter() - start))
        print(f"{graph_name(spec)}: n {A.shape[0]:,}, {len(h)} levels, hierarchy {min(plain):.1f} ms unsynchronised "
              f"(fastest of {repeat}), synchronised parts (ms):")
        print(f"   {'level':>5} {'side':>6} {'n':>10} {'nnz':>11} " + " ".join(f"{p:>9}" for p in _PARTS))
        host = False  # coarsen's rule: the levels from the first of at most HOST_LEVEL_ENTRIES entries on
        for i, row in enumerate(best):
            level = h[i]
            host = host or (i > 0 and level.nnz <= coarsen.HOST_LEVEL_ENTRIES)
            side = row["side"] = "host" if host else "device"
            row.update(n=level.n, nnz=level.nnz)
            print(f"   {i:>5} {side:>6} {level.n:>10,} {level.nnz:>11,} " +
                  " ".join(f"{row.get(p, 0.0):9.2f}" for p in _PARTS))
        total = {p: sum(row.get(p, 0.0) for row in best) for p in _PARTS}
        print(f"   {'sum':>5} {'':>6} {'':>10} {'':>11} " + " ".join(f"{total[p]:9.2f}" for p in _PARTS), flush=True)
        out.append({"graph": graph_name(spec), "n": A.shape[0], "hierarchy_ms": min(plain), "levels": best,
                    "backend": backend, "host_entries": coarsen.HOST_LEVEL_ENTRIES})
        if profile and spec == specs[0]:
            prof = cProfile.Profile()
            prof.enable()
            hierarchy()
            sync()
            prof.disable()
            text = io.StringIO()
            pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
            print(text.getvalue())
    if json_path:
        with open(json_path, "w") as f:
            json.dump(out, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["capture", "time", "gpu"])
    parser.add_argument("folder", type=pathlib.Path, help="capture, time: the inputs' folder (gpu: unused, '-')")
    parser.add_argument("graphs", nargs="*", help="capture: GRAPH specs (laplace3d:100, a .mtx.gz path)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--hash", action="store_true", help="print a hash of each result's CSR arrays")
    parser.add_argument("--profile", action="store_true", help="gpu: a cProfile of the first graph's hierarchy")
    parser.add_argument("--json", help="gpu: write the per-level rows here")
    parser.add_argument("--host-entries", type=int, help="gpu: coarsen.HOST_LEVEL_ENTRIES (-1: every level on the GPU)")
    parser.add_argument("--backend", default="cupy", choices=["cupy", "native"],
                        help="gpu: the hierarchy's backend (a bisection of cupy input coarsens on native)")
    args = parser.parse_args()
    if args.mode == "gpu":
        gpu(args.graphs, args.repeat, args.profile, args.json, args.backend, args.host_entries)
    elif args.mode == "capture":
        capture(args.folder, args.graphs)
    else:
        timed(args.folder, args.repeat, args.threads, args.hash)


if __name__ == "__main__":
    main()
