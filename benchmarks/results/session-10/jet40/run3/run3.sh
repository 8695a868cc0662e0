# jet40 device run 3: SAME_PART_SUM translated on the device (partition._cut), Jet's host levels at 4,096 entries;
# GPU tests, per-level profile, bench beside KaMinPar (16 threads)
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== tests"
timeout 80 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py -k "not shared_graphs" "tests/test_partition.py::test_gpu_parts_equal_cpu" > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
cd benchmarks
echo "== profile"
timeout 30 python3 -W ignore profile_jet.py --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz --json $OUT/profile.json > $OUT/profile.txt 2>&1
grep -E "^[a-zA-Z]" $OUT/profile.txt | cut -c1-220
echo "elapsed $(( $(date +%s) - S )) s"
echo "== bench beside KaMinPar (16 threads), k = 2, tries 1"
timeout 100 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 3 --threads 16 --only hec+jet kaminpar \
  --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz ../data/usroads-48.mtx.gz ../data/usroads.mtx.gz ../data/wave.mtx.gz \
  --json $OUT/bench.json 2>&1 | tee $OUT/bench.txt | grep -v "^ *$" | cut -c1-160
echo "elapsed $(( $(date +%s) - S )) s"
