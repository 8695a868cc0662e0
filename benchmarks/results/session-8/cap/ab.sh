#!/bin/bash
# ab.sh ROUNDS SPECS...: the tree before the cap (OLD, main at 14c36a3), the capped tree (NEW,
# its default COARSE_CAP = 0.5) and NEW with CAP=0.25, alternated in separate processes, ROUNDS
# times; each line is ab1.py's JSON (one call per configuration, one thread) after the load.
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=${OLD:-/tmp/before_cap40}; NEW=${NEW:-/tmp/after_cap40}
N=$1; shift
for i in $(seq "$N"); do
  for tree in old new new25; do
    P=$OLD; [ $tree != old ] && P=$NEW
    CAPV=""; [ $tree = new25 ] && CAPV=0.25
    echo "$tree $(uptime | sed 's/.*load average: //') $(CAP=${CAPV:-0.5} PYTHONPATH=$P GBGRAPH_WARMUP=0 /work/venv/bin/python "$HERE/ab1.py" 1 "$@" 2>/dev/null)"
  done
done
