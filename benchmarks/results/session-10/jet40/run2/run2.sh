# jet40 device run 2: Jet's rebalancing inside iterate's check (one recording a level); GPU tests,
# per-level profile at 4 host thresholds, bench beside KaMinPar (16 threads)
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
export GBGRAPH_DATA=$PWD/data
echo "== tests"
timeout 150 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py "tests/test_partition.py::test_gpu_jet_equals_cpu_on_shared_graphs" "tests/test_partition.py::test_gpu_parts_equal_cpu" > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
cd benchmarks
G="laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/wave.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz"
for mode in "h65536 --host-entries 65536" "h4096 --host-entries 4096" "h0 --host-entries -1" "dev --device-only --profile laplace3d:100"; do
  set -- $mode; name=$1; shift
  echo "== profile $name"
  timeout 60 python3 -W ignore profile_jet.py "$@" --graphs $G --json $OUT/profile-$name.json > $OUT/profile-$name.txt 2>&1
  grep -v "^ *[0-9]" $OUT/profile-$name.txt | grep -E "^[a-zA-Z]| refine" | cut -c1-150 | head -60
  echo "elapsed $(( $(date +%s) - S )) s"
done
echo "== bench beside KaMinPar (16 threads), k = 2 and 8, tries 1"
timeout 150 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 8 --repeat 3 --threads 16 --only hec+jet kaminpar \
  --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz ../data/mdual.mtx.gz ../data/usroads-48.mtx.gz ../data/usroads.mtx.gz ../data/wave.mtx.gz \
  --json $OUT/bench.json 2>&1 | tee $OUT/bench.txt | grep -v "^ *$" | cut -c1-160
echo "elapsed $(( $(date +%s) - S )) s"
