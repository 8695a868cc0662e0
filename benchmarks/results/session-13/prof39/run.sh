#!/bin/sh
# Three runs of the profiler, one thread, process CPU time, in fresh processes (run from benchmarks/).
out=results/session-13/prof39
for i in 1 2 3; do
  echo "run $i, load $(cat /proc/loadavg)"
  PYTHONPATH=..:. /work/venv/bin/python profile_cpu_rounds.py --threads 1 --repeat 5 --graphs laplace3d:100 elasticity3d:40 \
      /work/shared/data/coAuthorsDBLP.mtx.gz /work/shared/data/delaunay_n17.mtx.gz --json $out/profile-$i.json
  echo "end of run $i, load $(cat /proc/loadavg)"
done
