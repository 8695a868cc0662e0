#!/bin/bash
# ab.sh ROUNDS REPEAT ROWS SPECS...: the "before" tree (OLD, default /work/main/.old, cb2ba9a)
# and this tree (NEW) alternated in separate processes, ROUNDS times; each prints ab1.py's JSON
# (per graph: [wall ms, process CPU ms] minima of REPEAT calls, SpMV included) after the load.
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=${OLD:-/work/main/.old}; NEW=${NEW:-$(cd "$HERE/../../../.." && pwd)}
N=$1; R=$2; ROWS=$3; shift 3
for i in $(seq "$N"); do
  for tree in old new; do
    P=$OLD; [ $tree = new ] && P=$NEW
    echo "$tree $(uptime | sed 's/.*load average: //') $(PYTHONPATH=$P GBGRAPH_WARMUP=0 python "$HERE/ab1.py" "$R" "$ROWS" "$@" 2>/dev/null)"
  done
done
