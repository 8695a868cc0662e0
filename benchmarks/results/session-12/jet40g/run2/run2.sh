# jet40g device run 2: + the rebalancing round in one call (fused "jet_rebalance"); GPU tests, A/B bench
# (old = 6bc62d6 from the old/ overlay), per-level profile with a cProfile of coAuthorsDBLP, Jet host levels off.
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/old && mkdir /tmp/old && cp -a . /tmp/old/ && cp -a old/. /tmp/old/ && rm -f /tmp/old/gbgraph/backends/cupy/kernels/jet.cu
echo "== tests"; timeout 110 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py tests/test_partition.py tests/test_gpu.py > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
GB="laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz ../data/usroads-48.mtx.gz ../data/usroads.mtx.gz ../data/wave.mtx.gz"
echo "== bench new (with kaminpar 16 threads)"; (cd benchmarks && timeout 60 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 3 --threads 16 --only hec+jet kaminpar --graphs $GB --json $OUT/bench-new.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== bench old"; (cd /tmp/old/benchmarks && PYTHONPATH=/tmp/site:/tmp/old timeout 60 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 3 --threads 16 --only hec+jet --graphs $GB --json $OUT/bench-old.json 2>&1 | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile new"; (cd benchmarks && timeout 40 python3 -W ignore profile_jet.py --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/wave.mtx.gz --profile ../data/coAuthorsDBLP.mtx.gz --json $OUT/profile-new.json 2>&1 | cut -c1-200 | head -120)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile new, every Jet level on the device (--host-entries -1)"; (cd benchmarks && timeout 30 python3 -W ignore profile_jet.py --host-entries -1 --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/wave.mtx.gz --json $OUT/profile-dev.json 2>&1 | cut -c1-200)
echo "elapsed $(( $(date +%s) - S )) s"
