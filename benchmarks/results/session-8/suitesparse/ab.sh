#!/bin/bash
# ab.sh ROUNDS REPEAT ROWS SPECS...: the "before" tree (OLD, default /tmp/before_ss39, main's
# HEAD 14c36a3 exported) and this tree (NEW) alternated in separate processes, ROUNDS times;
# each line: tree, load averages, ab1.py's JSON.
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=${OLD:-/tmp/before_ss39}; NEW=${NEW:-$(cd "$HERE/../../../.." && pwd)}
N=$1; R=$2; ROWS=$3; shift 3
for i in $(seq "$N"); do
  for tree in old new; do
    P=$OLD; [ $tree = new ] && P=$NEW
    echo "$tree $(uptime | sed 's/.*load average: //') $(PYTHONPATH=$P GBGRAPH_WARMUP=0 /work/venv/bin/python "$HERE/ab1.py" "$R" "$ROWS" "$@" 2>/dev/null)"
  done
done
