"""The k = 8 sweep with per-depth tries for the coarsest graph's bisections (issue 40, session 13,
kway40d; not kept): ``partition.multilevel_bisection`` wrapped so that a bisection whose sides
will hold ``c`` parts in all runs ``RULES[config](c)`` tries instead of 3. Run from the root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/kway40d/sweep_depth.py \
        --k 8 --configs default below2 leaf2 leaf1 top2 --json sweep-4.json
"""

import dataclasses
import importlib.util
import pathlib

spec = importlib.util.spec_from_file_location("sweep13", pathlib.Path(__file__).resolve().with_name("sweep.py"))
sweep13 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep13)
sweep = sweep13.sweep

from gbgraph.algorithms import partition as P  # noqa: E402  (the sweep put benchmarks/ on the path)

#: config -> tries of a bisection whose sides will hold c parts in all (3: the default's)
RULES = {"below2": lambda c: 3 if c >= 8 else 2, "leaf2": lambda c: 2 if c == 2 else 3,
         "leaf1": lambda c: 1 if c == 2 else 3, "top2": lambda c: 2 if c >= 8 else 3}
RULE = {"rule": None}
bisection = P.multilevel_bisection


def wrapped(be, graph, vw, counts, opt):
    rule = RULE["rule"]
    if rule is not None and opt.tries == 3:
        opt = dataclasses.replace(opt, tries=rule(sum(counts)))
    return bisection(be, graph, vw, counts, opt)


P.multilevel_bisection = wrapped
run = sweep.run


def run_with_rule(config, G, k):
    RULE["rule"] = RULES.get(config)
    return run("default" if config in RULES else config, G, k)


sweep.run = run_with_rule
sweep.CONFIGS.update({name: (None, None, {}) for name in RULES})

if __name__ == "__main__":
    sweep.main()
