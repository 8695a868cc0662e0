"""Where a GPU bisection with Jet refinement spends its time: per graph, the phases
(coarsen, initial, refine) of ``gg.bisect(..., refine="jet", tries=1)`` on the cupy backend,
the HEC hierarchy alone, and each level's refinement (backend, vertices, entries, rounds,
rebalancing rounds the host ran (not those inside the cupy backend's rounds kernel), milliseconds, each
level synchronised; with ``--phases``, its pieces); with ``--profile GRAPH``, a
cProfile of one run on that graph. ``--device-only`` keeps every level of the coarsening on
the device too (``coarsen.HOST_LEVEL_ENTRIES = -1``; the refinement's levels are all on the
device since session 13), for an A/B.

    python benchmarks/profile_jet.py --graphs laplace3d:100 wave.mtx.gz --profile laplace3d:100

On the cupy backend the refinement waits for nothing since session 14, so its phase in
``seconds`` is the host's time; the per-level rows are synchronised. Needs CuPy and an NVIDIA
GPU. The figures are quoted in benchmarks/results/partition-gpu.txt and
docs/partitioning_history.md ("Session 10: GPU Jet" and after).
"""

import argparse
import cProfile
import functools
import io
import json
import pstats
import time

from bench_partition import largest_component
from common import graph_name, matrix

import gbgraph as gg
from gbgraph.algorithms import coarsen, refine_jet


def _phases():
    """Where each level's time goes, its pieces each timed synchronised (so that the device
    work they queue counts): the projection onto it, its set-up (``_Level``), the rounds'
    set-up (``_Rounds.__init__``), the rounds (``run``), and inside them the cupy backend's
    recording, while-node instantiation, replay launches, launches of the rounds' kernel and
    the host's rebalancing rounds (``resume``). (object, attribute, name) triples for
    :class:`_Levels`."""
    from gbgraph.backends.cupy import kernels, replay

    projection = "_sigma" if hasattr(refine_jet, "_sigma") else "project"  # inside _refine_level since session 14
    pieces = [(refine_jet, projection, "project"), (refine_jet._Level, "__init__", "level"),
              (refine_jet._Rounds, "__init__", "setup"), (refine_jet._Rounds, "run", "run"),
              (refine_jet._Rounds, "resume", "resume"), (replay._Replay, "__init__", "record"),
              (replay._WhileNode, "around", "instantiate"), (replay._Replay, "launch", "replay")]
    if hasattr(kernels, "JetRounds"):  # not in trees before session 14's
        pieces.append((kernels.JetRounds, "__call__", "kernel"))
    return pieces


class _Levels:
    """Wraps refine_jet's level refinement to time each level (synchronised) and count its
    rounds; :attr:`rows` holds one dict per level of the last call."""

    def __init__(self, sync, phases=()):
        self.rows, self._sync, self._phases, self._pending = [], sync, phases, {}
        self._saved = (refine_jet._refine_level, refine_jet._Rounds)
        self._refine, self._rounds = self._saved
        self._originals = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in phases]

    def _timed(self, function, name, before):
        """``function`` timed into the current level's row, or (``before``: partition's
        ``project``, which comes before its level's row) into the next one's."""
        levels = self

        @functools.wraps(function)
        def timed(*args, **kwargs):
            levels._sync()
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                levels._sync()
                into = levels._pending if before or not levels.rows else levels.rows[-1]["phases"]
                into[name] = into.get(name, 0.0) + 1e3 * (time.perf_counter() - start)

        return timed

    def __enter__(self):
        levels = self
        for (owner, attr, name), (_, _, original) in zip(self._phases, self._originals):
            setattr(owner, attr, self._timed(original, name, before=attr == "project"))

        class Rounds(self._rounds):
            def __init__(self, *args):
                super().__init__(*args)
                levels.rows[-1]["runs"].append(self)  # a coarse level's two runs (refine_jet.SCHEDULE)

            def _rebalance(self, pw):
                levels.rows[-1]["rebalances"] += 1
                return super()._rebalance(pw)

        def refine(be, level, *args):
            levels.rows.append({"backend": be.name, "n": level.n, "nnz": level.nnz, "rebalances": 0,
                                "phases": levels._pending, "runs": []})
            levels._pending = {}
            levels._sync()
            start = time.perf_counter()
            sides = levels._refine(be, level, *args)
            levels._sync()
            row = levels.rows[-1]
            row["ms"] = 1e3 * (time.perf_counter() - start)
            row["rounds"] = sum(run.rounds for run in row.pop("runs"))
            return sides

        refine_jet._refine_level, refine_jet._Rounds = refine, Rounds
        return self

    def __exit__(self, *exc):
        refine_jet._refine_level, refine_jet._Rounds = self._saved
        for owner, attr, original in self._originals:
            setattr(owner, attr, original)


def main(argv=None):
    import cupy
    import cupyx.scipy.sparse as csp
    from gbgraph.backends.cupy import replay

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", nargs="+", default=["laplace3d:100"], help="GRAPH specs as in the CLI")
    parser.add_argument("--profile", metavar="GRAPH", help="also print a cProfile of one run on this graph")
    parser.add_argument("--device-only", action="store_true", help="refine every level on the device")
    parser.add_argument("--repeat", type=int, default=3, help="runs per graph; the fastest is reported")
    parser.add_argument("--phases", action="store_true",
                        help="also time each level's pieces, synchronised (a second pass per graph)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    if args.device_only:
        coarsen.HOST_LEVEL_ENTRIES = -1
    sync = cupy.cuda.Device().synchronize
    rows = []
    for spec in args.graphs:
        A = largest_component(matrix(spec))
        G = csp.csr_matrix(A.astype("float64"))
        gg.bisect(G, refine="jet", tries=1)  # compile and cache
        sync()
        best = None
        for _ in range(args.repeat):
            recorded = replay.recordings
            start = time.perf_counter()
            r = gg.bisect(G, refine="jet", tries=1)
            sync()
            elapsed = time.perf_counter() - start
            if best is None or elapsed < best[0]:
                best = (elapsed, r, replay.recordings - recorded)
        start = time.perf_counter()
        h = gg.coarsen(G, "hec")
        sync()
        hec = time.perf_counter() - start
        elapsed, r, recordings = best
        with _Levels(sync) as levels:
            gg.bisect(G, refine="jet", tries=1)
        phases = " ".join(f"{name}={1e3 * s:.1f}" for name, s in r.seconds.items())
        print(f"{graph_name(spec):24s} n={A.shape[0]:>9,} cut={r.cut:>9,.0f} imbalance={r.imbalance:.4f} "
              f"ms={1e3 * elapsed:8.1f} hec_hierarchy_ms={1e3 * hec:6.1f} levels={len(r.levels)} "
              f"recordings={recordings} {phases}", flush=True)
        print("   hec levels (map+build ms): " + " ".join(
            f"{level.n:,}:{1e3 * sum(level.seconds):.1f}" for level in h.levels[:-1]))
        for row in levels.rows:
            print(f"   refine {row['backend']:6s} n={row['n']:>9,} nnz={row['nnz']:>10,} rounds={row['rounds']:>3} "
                  f"rebalances={row['rebalances']:>2} ms={row['ms']:7.2f} "
                  f"ms/round={row['ms'] / max(row['rounds'], 1):.3f}")
        if args.phases:  # a pass of its own: the pieces' synchronisations slow it
            with _Levels(sync, _phases()) as timed:
                gg.bisect(G, refine="jet", tries=1)
            for row in timed.rows:
                print(f"   phases n={row['n']:>9,} ms={row['ms']:7.2f} " +
                      " ".join(f"{name}={ms:.2f}" for name, ms in row["phases"].items()))
                row.pop("state", None)
            levels.rows += [dict(row, timed=True) for row in timed.rows]
        rows.append({"graph": graph_name(spec), "n": A.shape[0], "cut": float(r.cut), "ms": 1e3 * elapsed,
                     "seconds": r.seconds, "recordings": recordings, "levels": levels.rows,
                     "device_only": args.device_only, "host_entries": coarsen.HOST_LEVEL_ENTRIES})
        if spec == args.profile:
            profile = cProfile.Profile()
            profile.enable()
            gg.bisect(G, refine="jet", tries=1)
            sync()
            profile.disable()
            for key in ("tottime", "cumtime"):
                out = io.StringIO()
                pstats.Stats(profile, stream=out).sort_stats(key).print_stats(30)
                print(out.getvalue())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
