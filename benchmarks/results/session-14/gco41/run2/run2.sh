# gco41 run 2: GPU tests (gpu, partition, jet, native hec); bench A/B new, base (9009bd3), new, base with KaMinPar 16 threads; profile_coarse gpu new; profile_jet new
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
BASE=$(cd ../gco41-base && pwd)
D=$PWD/data
echo "== tests"; timeout 150 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_gpu.py tests/test_partition.py tests/test_jet.py tests/test_native_hec.py > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
GB="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
B="python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 5 --threads 16 --graphs $GB"
for r in new1 base1 new2 base2; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  ONLY="--only hec+jet"; [ $r = new1 ] && ONLY="--only hec+jet kaminpar"
  echo "== bench $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout 100 $B $ONLY --json $OUT/bench-$r.json 2>&1 | grep -v "^ *$" | cut -c1-160)
  echo "elapsed $(( $(date +%s) - S )) s"
done
echo "== profile_coarse new"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$PWD/.. timeout 60 python3 -W ignore profile_coarse.py gpu - $GB --repeat 3 --backend native --profile --json $OUT/pc-new.json 2>&1 | cut -c1-220)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile_coarse new, levels of over 16,384 entries on the device"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$PWD/.. timeout 50 python3 -W ignore profile_coarse.py gpu - $GB --repeat 3 --backend native --host-entries 16384 --json $OUT/pc-new-16k.json 2>&1 | cut -c1-220)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile_jet new"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$PWD/.. timeout 50 python3 -W ignore profile_jet.py --graphs $GB --profile $D/usroads.mtx.gz --json $OUT/pj-new.json 2>&1 | grep -v "refine cupy" | cut -c1-250)
echo "elapsed $(( $(date +%s) - S )) s"
