# jet40g device run 5 (+ the rebalancing round with no host read: sort keys and flip on the device): GPU tests; bench A/B alternated new, old (6bc62d6), new, beside KaMinPar
# (16 threads); per-level profile with a cProfile of coAuthorsDBLP.
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/old && mkdir /tmp/old && cp -a . /tmp/old/ && cp -a old/. /tmp/old/ && rm -f /tmp/old/gbgraph/backends/cupy/kernels/jet.cu
echo "== tests"; timeout 110 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py tests/test_partition.py tests/test_gpu.py > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
GB="laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz ../data/usroads-48.mtx.gz ../data/usroads.mtx.gz ../data/wave.mtx.gz"
B="python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 3 --threads 16 --graphs $GB"
echo "== bench new 1 (with kaminpar 16 threads)"; (cd benchmarks && timeout 60 $B --only hec+jet kaminpar --json $OUT/bench-new1.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== bench old"; (cd /tmp/old/benchmarks && PYTHONPATH=/tmp/site:/tmp/old timeout 100 $B --only hec+jet --json $OUT/bench-old.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== bench new 2"; (cd benchmarks && timeout 40 $B --only hec+jet --json $OUT/bench-new2.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile new"; (cd benchmarks && timeout 40 python3 -W ignore profile_jet.py --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/wave.mtx.gz --profile ../data/coAuthorsDBLP.mtx.gz --json $OUT/profile-new.json 2>&1 | cut -c1-200 | head -90)
echo "elapsed $(( $(date +%s) - S )) s"
