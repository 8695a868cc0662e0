# jet41: GPU tests, profile (phases) base and new, bench new (with KaMinPar) and base
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
BASE=$(cd ../jet41-base && pwd)
TESTS=${TESTS:-tests/test_jet.py}
echo "== tests"; timeout ${TT:-120} python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider $TESTS > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
D=$PWD/data
GP="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/wave.mtx.gz $D/usroads.mtx.gz"
GB="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
for r in ${PROFILES:-base new}; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  echo "== profile $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout ${PT:-60} python3 -W ignore profile_jet.py --graphs $GP ${PX:---phases} --json $OUT/profile-$r.json 2>&1 | cut -c1-260 | head -200)
  echo "elapsed $(( $(date +%s) - S )) s"
done
for r in ${BENCHES:-new1 base1}; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  ONLY="--only hec+jet"; [ $r = new1 ] && ONLY="--only hec+jet kaminpar"
  echo "== bench $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout ${BT:-90} python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat ${REPEAT:-5} --threads 16 --graphs $GB $ONLY --json $OUT/bench-$r.json 2>&1 | grep -v "^ *$" | cut -c1-160)
  echo "elapsed $(( $(date +%s) - S )) s"
done
