# gco41 run 3 (final tree): GPU tests; bench A/B alternated new, base (9009bd3), new, base, new, KaMinPar 16 threads in the first pass; profile_coarse gpu new (native) and base (cupy); profile_jet new
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
BASE=$(cd ../gco41-base && pwd)
D=$PWD/data
echo "== tests"; timeout 130 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_gpu.py tests/test_partition.py tests/test_jet.py tests/test_native_hec.py tests/test_coarsen.py > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
GB="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
B="python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 5 --threads 16 --graphs $GB"
for r in new1 base1 new2 base2 new3; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  ONLY="--only hec+jet"; [ $r = new1 ] && ONLY="--only hec+jet kaminpar"
  echo "== bench $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout 100 $B $ONLY --json $OUT/bench-$r.json 2>&1 | grep -v "^ *$" | cut -c1-160)
  echo "elapsed $(( $(date +%s) - S )) s"
done
for r in new base; do
  case $r in new*) T=$PWD; X="--backend native";; base*) T=$BASE; X="--backend cupy";; esac
  echo "== profile_coarse $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout 45 python3 -W ignore profile_coarse.py gpu - $GB --repeat 5 $X --json $OUT/pc-$r.json 2>&1 | cut -c1-220)
  echo "elapsed $(( $(date +%s) - S )) s"
done
echo "== profile_jet new"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$PWD/.. timeout 40 python3 -W ignore profile_jet.py --graphs $GB --json $OUT/pj-new.json 2>&1 | grep -v "refine cupy" | cut -c1-250)
echo "elapsed $(( $(date +%s) - S )) s"
