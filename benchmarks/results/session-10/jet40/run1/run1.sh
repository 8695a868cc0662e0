# jet40 device run 1: GPU tests of Jet, per-level profile (host levels vs device only), bench beside KaMinPar
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
export GBGRAPH_DATA=$PWD/data
echo "== tests"
timeout 170 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py "tests/test_partition.py::test_gpu_jet_equals_cpu_on_shared_graphs" "tests/test_partition.py::test_gpu_parts_equal_cpu" > $OUT/pytest.txt 2>&1
tail -3 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
cd benchmarks
G="laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/wave.mtx.gz ../data/delaunay_n17.mtx.gz"
echo "== profile (host levels)"
timeout 90 python3 -W ignore profile_jet.py --graphs $G --json $OUT/profile.json 2>&1 | tee $OUT/profile.txt | cut -c1-200
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile (device only)"
timeout 60 python3 -W ignore profile_jet.py --device-only --graphs laplace3d:100 ../data/wave.mtx.gz --json $OUT/profile-device.json 2>&1 | tee $OUT/profile-device.txt | cut -c1-200
echo "elapsed $(( $(date +%s) - S )) s"
echo "== bench beside KaMinPar (16 threads), k = 2 and 8, tries 1"
timeout 150 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 8 --repeat 3 --threads 16 --only hec+jet kaminpar \
  --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz ../data/usroads-48.mtx.gz ../data/usroads.mtx.gz ../data/wave.mtx.gz \
  --json $OUT/bench.json 2>&1 | tee $OUT/bench.txt | grep -v "^ *$" | cut -c1-160
echo "elapsed $(( $(date +%s) - S )) s"
