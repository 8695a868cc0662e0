#!/bin/bash
# usage: ab.sh script threads reps rounds backend graphs...
# old (/work/main/.old, main at 6bc62d6) and new (this worktree) in alternating processes, per graph
here=$(cd "$(dirname "$0")" && pwd); new=$(cd "$here/../../../../.." && pwd)
script=$1; th=$2; reps=$3; rounds=$4; be=$5; shift 5
for r in $(seq $rounds); do
 for g in "$@"; do
  for tree in /work/main/.old $new; do
   tag=$([ $tree = /work/main/.old ] && echo old || echo new)
   echo -n "$tag "; PYTHONPATH=$tree GBGRAPH_WARMUP=0 /work/venv/bin/python $here/$script $g $th $reps $be
  done
 done
 echo "# uptime: $(uptime)"
done
