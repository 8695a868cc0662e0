#!/bin/sh
# hashes.py on the tree at 81b2177 (/work/main/.old) and this one, at 1 and 2 threads
here="$(cd "$(dirname "$0")" && pwd)"
for t in 1 2; do for tree in /work/main/.old /work/wt/amg39d; do
  echo "threads $t $tree $(cd /tmp && PYTHONPATH=$tree GBGRAPH_WARMUP=0 NUMBA_NUM_THREADS=$t OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t /work/venv/bin/python $here/hashes.py)"
done; done
