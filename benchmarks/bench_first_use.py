"""A newcomer's first use and a busy machine (issue 37, items 1 and 7).

First use: each run gets an empty numba cache (a fresh ``NUMBA_CACHE_DIR``) and times, in a
process of its own, six everyday calls on ``laplace3d(--size)`` (``mis2``, ``color``,
``aggregate``, ``coarsen``, distance-2 ``color``, ``partition`` of the pattern into 2), the
import and the graph's generation included, then ``gbgraph mis2 laplace3d:50`` (--cli-graph) on the CLI:
once with that empty cache, then --repeats times right after (while the background
compilation may still run), then once more when the kernels are ready. Mode ``default`` is
what a user gets (the CPU default on ``suitesparse`` while gbgraph's kernels compile in the
background, docs/backends.md "First use"); mode ``off`` is ``GBGRAPH_WARMUP=0``, numba
compiling every kernel in the process that calls it. Each figure is also given in CPU
seconds of the measured process (its children's ``ru_utime + ru_stime``, the background
compilation excluded): on a shared machine, the wall time of a single-threaded compile
stretches with the load, its CPU time much less.

Busy machine: ``gg.mis2(G)`` on a prepared Laplace3D (``G = gg.as_graph(A)``, ``--busy-size``
50) with numba's threads at --threads-list, quiet and then with a competing process of two
threads (a numba ``prange`` loop over a large array, started by this script) running, with
parallel regions above gbgraph's work threshold (kernels/threads.py) and, for comparison,
with every kernel a parallel region (the threshold at 0, gbgraph 0.1's behaviour).

    python benchmarks/bench_first_use.py                          # both parts, results/first-use-cpu.json
    python benchmarks/bench_first_use.py --size 4 --cli-graph laplace3d:5 --runs 1 --repeats 1 \\
        --modes default --busy-size 10 --repeat 3 --json /tmp/smoke.json  # a smoke test: a minute or
                                                # two, most of it waiting for the background compile
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import ROOT, describe_machine, write_results

#: What a fresh process runs: the six calls, one JSON line of wall seconds per step.
SIX_CALLS = """
import json, sys, time
t0 = time.perf_counter()
import gbgraph as gg
A = gg.generators.laplace3d({size})
times = {{"import and generate": time.perf_counter() - t0}}
calls = {{"mis2": lambda: gg.mis2(A), "color": lambda: gg.color(A), "aggregate": lambda: gg.aggregate(A),
         "coarsen": lambda: gg.coarsen(A), "color distance 2": lambda: gg.color(A, distance=2),
         "partition": lambda: gg.partition(abs(A), 2)}}
for name, call in calls.items():
    t = time.perf_counter()
    call()
    times[name] = time.perf_counter() - t
times["backend"] = gg.backend().name
print(json.dumps(times))
"""

#: The competing process: two numba threads sweeping an array until killed.
COMPETITOR = """
import numba, numpy as np
numba.set_num_threads(2)
@numba.njit(parallel=True)
def sweep(x):
    for i in numba.prange(x.size):
        x[i] = x[i] * 1.000001 + 1e-9
x = np.ones(1 << 22)
print("ready", flush=True)
while True:
    sweep(x)
"""


def timed(command, env, timeout=900, cwd=ROOT):
    """(wall seconds, CPU seconds, standard output) of ``command`` run to its end in ``cwd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{command} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def wait_for_kernels(cache, limit):
    """Seconds until the background compilation leaves its stamp in ``cache`` (None: not
    within ``limit`` seconds, or none was started)."""
    t = time.perf_counter()
    while time.perf_counter() - t < limit:
        stamps = list(pathlib.Path(cache).rglob("gbgraph-warm-*"))
        if stamps and not any(s.name.endswith(".lock") for s in stamps):
            return time.perf_counter() - t
        if not stamps:
            return None
        time.sleep(0.5)
    return None


def first_use(mode, size, cli_graph, repeats, wait_limit, tree=ROOT):
    """One run of the first-use part in a fresh cache, of the gbgraph in ``tree``; a dict of
    its figures."""
    cache = tempfile.mkdtemp(prefix="gbgraph-first-use-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(tree), PYTHONUNBUFFERED="1")
    env.pop("GBGRAPH_WARMUP", None)
    if mode == "off":
        env["GBGRAPH_WARMUP"] = "0"
    try:
        start = time.perf_counter()
        wall, cpu, out = timed([sys.executable, "-c", SIX_CALLS.format(size=size)], env, cwd=tree)
        row = {"tree": str(tree), "mode": mode, "size": size, "six calls wall s": wall, "six calls cpu s": cpu,
               "steps s": json.loads(out.strip().splitlines()[-1])}
        ready = wait_for_kernels(cache, wait_limit)
        row["kernels ready after s"] = None if ready is None else time.perf_counter() - start
        shutil.rmtree(cache)
        os.makedirs(cache)
        cli = [sys.executable, "-m", "gbgraph.cli", "mis2", cli_graph]
        runs = [timed(cli, env, cwd=tree) for _ in range(1 + repeats)]
        ready = wait_for_kernels(cache, wait_limit)
        runs.append(timed(cli, env, cwd=tree))
        row["cli first s"] = runs[0][0]
        row["cli first cpu s"] = runs[0][1]
        row["cli repeats s"] = [r[0] for r in runs[1:-1]]
        row["cli repeats cpu s"] = [r[1] for r in runs[1:-1]]
        row["cli after ready s"] = runs[-1][0]
        row["cli after ready cpu s"] = runs[-1][1]
        row["cli kernels were ready"] = ready is not None
        return row
    finally:
        wait_for_kernels(cache, wait_limit)  # no compilation left behind to load the next run
        shutil.rmtree(cache, ignore_errors=True)


def busy(size, threads_list, repeat):
    """Rows of mis2 times on a prepared Laplace3D, quiet and beside a two-threaded process."""
    import numba

    import gbgraph as gg
    from gbgraph.backends.numba.kernels import threads as kernel_threads

    G = gg.as_graph(gg.generators.laplace3d(size))
    threshold = kernel_threads.PARALLEL_WORK
    rows = []

    def sample():
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            gg.mis2(G, backend="numba")
            times.append(1e3 * (time.perf_counter() - t))
        return times

    settings = [(t, w) for t in threads_list for w in (threshold, 0) if t <= numba.config.NUMBA_NUM_THREADS]
    quiet = {}
    for t, work in settings:
        gg.backends.set_threads(t)
        kernel_threads.PARALLEL_WORK = work
        sample()  # compiles the twins these settings use
        quiet[t, work] = sample()
    competitor = subprocess.Popen([sys.executable, "-c", COMPETITOR], stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, NUMBA_NUM_THREADS="2"))
    try:
        competitor.stdout.readline()
        for t, work in settings:
            gg.backends.set_threads(t)
            kernel_threads.PARALLEL_WORK = work
            loaded = sample()
            rows.append({"graph": f"laplace3d:{size}", "threads": t, "parallel from entries": work,
                         "quiet median ms": statistics.median(quiet[t, work]), "quiet min ms": min(quiet[t, work]),
                         "busy median ms": statistics.median(loaded), "busy max ms": max(loaded),
                         "busy/quiet": statistics.median(loaded) / statistics.median(quiet[t, work])})
    finally:
        competitor.kill()
        competitor.wait()
        kernel_threads.PARALLEL_WORK = threshold
        gg.backends.set_threads(numba.config.NUMBA_NUM_THREADS)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--size", type=int, default=30, help="Laplace3D size of the six calls (default 30)")
    parser.add_argument("--runs", type=int, default=3, help="first-use runs per mode, each in a fresh cache")
    parser.add_argument("--modes", nargs="*", default=["default", "off"], choices=["default", "off"],
                        help="first-use modes (default: both)")
    parser.add_argument("--cli-graph", default="laplace3d:50", help="GRAPH of the CLI's mis2 (default laplace3d:50)")
    parser.add_argument("--repeats", type=int, default=3, help="CLI runs right after the first (default 3)")
    parser.add_argument("--wait", type=float, default=600, help="seconds to wait for the background compile")
    parser.add_argument("--busy-size", type=int, default=50, help="Laplace3D size of the busy-machine part")
    parser.add_argument("--threads-list", type=int, nargs="*", default=[1, 2], help="numba threads to measure")
    parser.add_argument("--repeat", type=int, default=30, help="mis2 calls per busy-machine figure")
    parser.add_argument("--skip", choices=["first-use", "busy"], help="leave one part out")
    parser.add_argument("--trees", nargs="*", default=[str(ROOT)], metavar="DIR",
                        help="gbgraph source trees whose first use is measured, one run of each in turn, "
                             "--runs times (A/B: this tree and an exported older one; default: this tree)")
    parser.add_argument("--json", metavar="FILE", default=str(ROOT / "benchmarks" / "results" / "first-use-cpu.json"),
                        help="where to write the results (default results/first-use-cpu.json)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    first = []
    if args.skip != "first-use":
        for mode in args.modes:
            for _ in range(args.runs):
                for tree in args.trees:
                    row = first_use(mode, args.size, args.cli_graph, args.repeats, args.wait, pathlib.Path(tree))
                    first.append(row)
                    print(json.dumps(row), flush=True)
    busy_rows = []
    if args.skip != "busy":
        busy_rows = busy(args.busy_size, args.threads_list, args.repeat)
        for row in busy_rows:
            print(json.dumps(row))
    machine = describe_machine(load_average_before=load_before, load_average_after=os.getloadavg())
    targets = {"six calls wall s": 15, "cli first s": 10, "cli repeats s": 1.5, "busy/quiet": 3}
    write_results(args.json, machine, {"first use": first, "busy machine": busy_rows}, targets=targets)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
