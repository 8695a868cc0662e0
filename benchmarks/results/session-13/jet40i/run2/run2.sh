# jet40i run 2: GPU tests, then bench A/B alternated new, base (81b2177), new, base, new; profile_jet
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
BASE=$(cd ../jet40i-base && pwd)
echo "== tests"; timeout 150 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py tests/test_partition.py tests/test_gpu.py > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
D=$PWD/data
GB="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
B="python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 5 --threads 16 --graphs $GB"
for r in new1 base1 new2 base2 new3; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  ONLY="--only hec+jet"; [ $r = new1 ] && ONLY="--only hec+jet kaminpar"
  echo "== bench $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout 90 $B $ONLY --json $OUT/bench-$r.json 2>&1 | grep -v "^ *$" | cut -c1-160)
  echo "elapsed $(( $(date +%s) - S )) s"
done
P="python3 -W ignore profile_jet.py --graphs laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/wave.mtx.gz $D/usroads.mtx.gz"
for r in new base new-devcoarse; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  X=""; [ $r = new-devcoarse ] && X="--device-only"; [ $r = new ] && X="--profile $D/usroads.mtx.gz"
  echo "== profile $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout 60 $P $X --json $OUT/profile-$r.json 2>&1 | cut -c1-200 | head -130)
  echo "elapsed $(( $(date +%s) - S )) s"
done
