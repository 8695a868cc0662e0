#!/bin/bash
# bench_cpu_rounds.py, 2 threads, wall time: .old and co39 alternated in fresh processes.
# ROUNDS="1 2" GRAPHS="<specs>" TAG=small ./rounds_ab_2threads.sh > rounds-2threads-TAG.txt
D=/work/wt/co39/benchmarks/results/session-13/co39
cd /work/wt/co39/benchmarks
export GBGRAPH_WARMUP=0
for r in $ROUNDS; do
  for tree in /work/main/.old /work/wt/co39; do
    name=$(basename $tree); name=${name#.}
    echo "== round $r tree $tree load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)"
    PYTHONPATH=$tree /work/venv/bin/python bench_cpu_rounds.py --graphs $GRAPHS --threads 2 --json $D/rounds-2threads-$TAG-$name-r$r.json
  done
done
echo "== end load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)"
