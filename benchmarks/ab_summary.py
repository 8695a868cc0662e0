"""Before/after table of an A/B benchmark run: the JSON files ``<bench>-old-<k>.json`` and
``<bench>-new-<k>.json`` of one folder (the same benchmark on two trees, alternated in one
run), each timing's minimum over the runs of a side, and the ratio new / old.

    python benchmarks/ab_summary.py benchmarks/results/operators-ab
"""

import argparse
import json
import pathlib
import statistics


def timings(obj, prefix=""):
    """(path, value) of every timing in a benchmark's JSON: a number under a key that
    names milliseconds; rows are named by their graph."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from timings(value, f"{prefix}/{key}")
    elif isinstance(obj, list):
        for k, value in enumerate(obj):
            yield from timings(value, f"{prefix}/{value.get('graph', k) if isinstance(value, dict) else k}")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool) and prefix.endswith("ms"):
        yield prefix, obj


def side(folder, bench, name):
    runs = [dict(timings(json.loads(p.read_text()))) for p in sorted(folder.glob(f"{bench}-{name}-*.json"))]
    return {k: min(run[k] for run in runs) for k in runs[0] if all(k in run for run in runs)} if runs else {}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--floor", type=float, default=1.0, help="leave out timings below this many ms (old side)")
    args = parser.parse_args(argv)
    benches = sorted({p.name.split("-old-")[0] for p in args.folder.glob("*-old-*.json")})
    for bench in benches:
        old, new = side(args.folder, bench, "old"), side(args.folder, bench, "new")
        rows = [(new[k] / old[k], k, old[k], new[k]) for k in old if k in new and old[k] >= args.floor]
        if not rows:
            continue
        print(f"== {bench}: {len(rows)} timings, geometric mean new/old {statistics.geometric_mean(r[0] for r in rows):.3f}")
        for ratio, key, a, b in sorted(rows, reverse=True):
            print(f"  {ratio:5.2f}  {a:10.2f} -> {b:10.2f}  {key}")


if __name__ == "__main__":
    main()
