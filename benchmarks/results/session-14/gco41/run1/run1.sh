# gco41 run 1: GPU coarse tests; profile_coarse.py gpu new and base (9009bd3); profile_jet new
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
BASE=$(cd ../gco41-base && pwd)
D=$PWD/data
echo "== tests"; timeout 110 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_gpu.py -k "coarse or coarsen or small_levels or mapping" > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
GB="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
for r in new base; do
  case $r in new*) T=$PWD; X="--profile";; base*) T=$BASE; X="";; esac
  echo "== profile_coarse $r"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$T timeout 100 python3 -W ignore profile_coarse.py gpu - $GB --repeat 3 $X --json $OUT/pc-$r.json 2>&1 | cut -c1-220 | head -150)
  echo "elapsed $(( $(date +%s) - S )) s"
done
echo "== profile_jet new"; (cd $PWD/benchmarks && PYTHONPATH=/tmp/site:$PWD/.. timeout 60 python3 -W ignore profile_jet.py --graphs $GB --json $OUT/pj-new.json 2>&1 | grep -v "refine cupy" | cut -c1-220)
echo "elapsed $(( $(date +%s) - S )) s"
