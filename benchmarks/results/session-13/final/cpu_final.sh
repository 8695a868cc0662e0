# session 13: issue 39 rows, 81b2177 (.old) and the merged tree alternated, 2 threads wall and 1 thread CPU time
set -u
cd /work/main
OUTD=${OUTD:-/tmp/cpu_final}; mkdir -p $OUTD
G="laplace3d:100 elasticity3d:40 /work/shared/data/coAuthorsDBLP.mtx.gz /work/shared/data/delaunay_n17.mtx.gz"
export XDG_CACHE_HOME=/tmp/xdg-final
for t in .old .; do (cd $t/benchmarks && GBGRAPH_WARMUP=0 PYTHONPATH=.. /work/venv/bin/python -W ignore bench_cpu_rounds.py --graphs laplace3d:20 /work/shared/data/delaunay_n15.mtx.gz --threads 2 --repeat 1 >/dev/null 2>&1); done
for k in 1 2; do for t in "old .old" "new ."; do set -- $t
  uptime | tee -a $OUTD/load.txt
  (cd $2/benchmarks && GBGRAPH_WARMUP=0 PYTHONPATH=.. /work/venv/bin/python -W ignore bench_cpu_rounds.py --graphs $G --threads 2 --repeat 5 --json $OUTD/rounds-$1-2t-$k.json > $OUTD/rounds-$1-2t-$k.txt 2>&1)
  (cd $2/benchmarks && GBGRAPH_WARMUP=0 PYTHONPATH=.. /work/venv/bin/python -W ignore bench_cpu_rounds.py --graphs $G --threads 1 --clock cpu --repeat 5 --json $OUTD/rounds-$1-1t-$k.json > $OUTD/rounds-$1-1t-$k.txt 2>&1)
done; done
(cd benchmarks && GBGRAPH_WARMUP=0 PYTHONPATH=.. /work/venv/bin/python -W ignore bench_amg.py --sizes 60 100 --configurations defaults --repeat 3 --json $OUTD/amg.json > $OUTD/amg.txt 2>&1)
uptime | tee -a $OUTD/load.txt
