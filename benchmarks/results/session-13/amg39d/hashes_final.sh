#!/bin/sh
# hashes.py on this tree again after its last kernel change, at 1 and 2 threads
here="$(cd "$(dirname "$0")" && pwd)"
for t in 1 2; do
  echo "threads $t /work/wt/amg39d (final) $(cd /tmp && PYTHONPATH=/work/wt/amg39d GBGRAPH_WARMUP=0 NUMBA_NUM_THREADS=$t OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t /work/venv/bin/python $here/hashes.py)"
done
