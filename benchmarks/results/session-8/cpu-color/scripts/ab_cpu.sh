#!/bin/bash
# usage: ab.sh threads reps rounds backend graphs...
th=$1; reps=$2; rounds=$3; be=$4; shift 4
for r in $(seq $rounds); do
 for g in "$@"; do
  for tree in /work/main/.old /work/wt/color39; do
   tag=$([ $tree = /work/main/.old ] && echo old || echo new)
   echo -n "$tag "; PYTHONPATH=$tree GBGRAPH_WARMUP=0 /work/venv/bin/python /tmp/c39/one_cpu.py $g $th $reps $be
  done
 done
done
