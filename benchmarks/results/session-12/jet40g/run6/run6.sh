# jet40g device run 6 (final tree, as run5): bench only, alternated new, old (6bc62d6), new, old, new, --repeat 5,
# KaMinPar (16 threads) beside the first; the machine's run-to-run noise made single A/B pairs unreliable.
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/old && mkdir /tmp/old && cp -a . /tmp/old/ && cp -a old/. /tmp/old/ && rm -f /tmp/old/gbgraph/backends/cupy/kernels/jet.cu
GB="laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz ../data/usroads-48.mtx.gz ../data/usroads.mtx.gz ../data/wave.mtx.gz"
B="python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 5 --threads 16 --graphs $GB"
echo "== new 1 (with kaminpar)"; (cd benchmarks && timeout 70 $B --only hec+jet kaminpar --json $OUT/new1.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== old 1"; (cd /tmp/old/benchmarks && PYTHONPATH=/tmp/site:/tmp/old timeout 100 $B --only hec+jet --json $OUT/old1.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== new 2"; (cd benchmarks && timeout 45 $B --only hec+jet --json $OUT/new2.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "== old 2"; (cd /tmp/old/benchmarks && PYTHONPATH=/tmp/site:/tmp/old timeout 45 $B --only hec+jet --json $OUT/old2.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "== new 3"; (cd benchmarks && timeout 45 $B --only hec+jet --json $OUT/new3.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
