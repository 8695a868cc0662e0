#!/bin/sh
# the one-thread, CPU-time A/B runs of README.md, on this tree (PYTHONPATH=.) and /work/main/.old
cd "$(dirname "$0")/../../../.."
R=benchmarks/results/session-13/amg39d
export GBGRAPH_WARMUP=0 NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
for c in laplace3d:60 laplace3d:100 elasticity3d:40; do PYTHONPATH=. /work/venv/bin/python $R/check_ab.py $c 5; done > $R/check_ab_t1.txt 2>&1
for c in laplace3d:60 laplace3d:100 elasticity3d:40; do PYTHONPATH=. /work/venv/bin/python $R/lanczos_ab.py $c 5; done > $R/lanczos_ab_t1.txt 2>&1
for c in laplace3d:60 laplace3d:100 elasticity3d:40; do PYTHONPATH=. /work/venv/bin/python $R/setup_ab.py $c 5; done > $R/setup_ab_t1.txt 2>&1
for k in 1 2; do for c in laplace3d:100 elasticity3d:40; do for t in /work/main/.old $PWD; do
  (cd /tmp && PYTHONPATH=$t /work/venv/bin/python $OLDPWD/$R/fresh_rusage.py $c); done; done; done > $R/fresh_rusage_t1.txt 2>&1
uptime >> $R/fresh_rusage_t1.txt
