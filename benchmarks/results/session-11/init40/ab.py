"""Before/after of gg.partition's defaults beside KaMinPar's default, on the graphs of >= 30,000
vertices (issue 40 part 1). Run from the repository root:

    python benchmarks/results/session-11/init40/ab.py --before /work/main/.old --after . \
        --threads 1 --rounds 3 --json ab-1.json

Each round runs one process per tree (before, then after), alternating; a process loads every
graph (largest component, a pattern, as bench_partition.py), runs gg.partition(A, k) once
untimed, then once timed beside one timed KaMinPar default run (same thread count), for k = 2
and 8. CPU time (time.process_time) and wall time; the medians over the rounds are reported,
with the parts' hash (sha1 of the int64 parts) so that runs can be compared for determinism.
"""

import argparse
import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve()
BENCH = HERE.parents[3]  # benchmarks/


def worker(threads, ks, graphs):
    import tempfile
    import time

    import numpy as np

    sys.path.insert(0, str(BENCH))
    import gbgraph as gg
    from bench_partition import cut_and_imbalance, largest_component, peer_runners
    from common import matrix

    gg.backends.set_threads(threads)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in graphs:
            A = largest_component(matrix(spec))
            if A.shape[0] < 30_000:
                continue
            G = gg.as_graph(A)
            for k in ks:
                kaminpar = peer_runners(A, k, tmp, threads=threads)["kaminpar"]
                gg.partition(G, k)  # compile and cache first
                row = {"graph": pathlib.Path(spec).name.removesuffix(".mtx.gz"), "n": A.shape[0], "k": k}
                for name, fn in (("gbgraph", lambda: gg.partition(G, k).parts), ("kaminpar", kaminpar)):
                    c, w = time.process_time(), time.perf_counter()
                    parts = np.asarray(fn(), dtype=np.int64)
                    row[name] = {"cpu_s": time.process_time() - c, "wall_s": time.perf_counter() - w}
                    cut, imbalance = cut_and_imbalance(A, parts, k)
                    row[name].update(cut=cut, imbalance=imbalance, sha1=hashlib.sha1(parts.tobytes()).hexdigest()[:12])
                out.append(row)
                print(json.dumps(row), flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--k", nargs="*", type=int, default=[2, 8])
    parser.add_argument("--data", default="../shared/data", help="folder of .mtx.gz graphs")
    parser.add_argument("--json")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--graphs", nargs="*")
    args = parser.parse_args()
    graphs = args.graphs or ["laplace3d:100"] + [str(p) for p in sorted(pathlib.Path(args.data).glob("*.mtx.gz"))]
    if args.worker:
        worker(args.threads, args.k, graphs)
        return
    runs = {"before": [], "after": []}
    for r in range(args.rounds):
        for tree in ("before", "after"):
            env = dict(os.environ, PYTHONPATH=str(pathlib.Path(getattr(args, tree)).resolve()),
                       NUMBA_NUM_THREADS=str(args.threads), GBGRAPH_WARMUP="0")
            cmd = [sys.executable, str(HERE), "--worker", "--before", "-", "--after", "-", "--threads",
                   str(args.threads), "--k", *map(str, args.k), "--graphs", *graphs]
            lines = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout.splitlines()
            runs[tree].append([json.loads(line) for line in lines if line.startswith("{")])
            print(f"round {r + 1}, {tree}: {len(runs[tree][-1])} rows", file=sys.stderr, flush=True)
    table = []
    for i, row in enumerate(runs["after"][0]):
        entry = {"graph": row["graph"], "n": row["n"], "k": row["k"]}
        for tree in ("before", "after"):
            rows = [rs[i] for rs in runs[tree]]
            entry[tree] = {"cpu_s": statistics.median(x["gbgraph"]["cpu_s"] for x in rows),
                           "wall_s": statistics.median(x["gbgraph"]["wall_s"] for x in rows),
                           "kaminpar_cpu_s": statistics.median(x["kaminpar"]["cpu_s"] for x in rows),
                           "kaminpar_wall_s": statistics.median(x["kaminpar"]["wall_s"] for x in rows),
                           "cut": rows[0]["gbgraph"]["cut"], "imbalance": rows[0]["gbgraph"]["imbalance"],
                           "kaminpar_cut": rows[0]["kaminpar"]["cut"],
                           "sha1": sorted({x["gbgraph"]["sha1"] for x in rows})}
        table.append(entry)
    print(f"\n{args.threads} thread(s), median of {args.rounds} alternated rounds; CPU s (wall s); "
          "ratio = gbgraph / KaMinPar default, each tree against the KaMinPar runs of its own processes")
    print(f"{'graph':<22}{'k':>3}{'n':>10} | {'before':>14}{'after':>14}{'KaMinPar':>14} | {'before/KM':>9}"
          f"{'after/KM':>9} | {'cut before':>11}{'cut after':>11}{'cut KM':>9}")
    lines = []
    for e in table:
        b, a = e["before"], e["after"]
        km = statistics.median([b["kaminpar_cpu_s"], a["kaminpar_cpu_s"]])
        print(f"{e['graph']:<22}{e['k']:>3}{e['n']:>10,} | {b['cpu_s']:>7.3f} ({b['wall_s']:.3f}){a['cpu_s']:>7.3f} "
              f"({a['wall_s']:.3f}){km:>7.3f}       | {b['cpu_s'] / b['kaminpar_cpu_s']:>9.2f}"
              f"{a['cpu_s'] / a['kaminpar_cpu_s']:>9.2f} | {b['cut']:>11,}{a['cut']:>11,}{a['kaminpar_cut']:>9,}")
    for k in args.k:
        rows = [e for e in table if e["k"] == k]
        for tree in ("before", "after"):
            ratios = [e[tree]["cpu_s"] / e[tree]["kaminpar_cpu_s"] for e in rows]
            g = statistics.geometric_mean(ratios)
            lines.append(f"k={k}: {tree}: CPU time / KaMinPar default's: geometric mean {g:.2f}, at most {max(ratios):.2f}, "
                         f"no slower on {sum(x <= 1 for x in ratios)} of {len(rows)} graphs")
        speed = statistics.geometric_mean([e["before"]["cpu_s"] / e["after"]["cpu_s"] for e in rows])
        lines.append(f"k={k}: after / before speed-up (CPU, geometric mean) {speed:.2f}")
    print("\n".join(lines))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"threads": args.threads, "rounds": args.rounds,
                                                       "load_average": os.getloadavg(), "table": table,
                                                       "runs": runs, "summary": lines}, indent=1))


if __name__ == "__main__":
    main()
