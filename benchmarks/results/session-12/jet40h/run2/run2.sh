# jet40h run 2 (the tree of run 1): warm-up passes (kernel compiles), then bench A/B alternated
# new, base (0f5be79), new, base, new with --repeat 5; profile of coAuthorsDBLP with a cProfile, new then base
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
BASE=$(cd ../jet40h-base && pwd)
D=$PWD/data
GB="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
B="python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --threads 16 --only hec+jet"
for T in $PWD $BASE; do
  echo "== warm-up $T"; (cd $T/benchmarks && PYTHONPATH=/tmp/site:$T timeout 80 $B --repeat 1 --graphs $D/coAuthorsDBLP.mtx.gz $D/wave.mtx.gz 2>&1 | tail -3)
  echo "elapsed $(( $(date +%s) - S )) s"
done
for r in new1 base1 new2 base2 new3; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  echo "== bench $r"; (cd $T/benchmarks && PYTHONPATH=/tmp/site:$T timeout 50 $B --repeat 5 --graphs $GB --json $OUT/bench-$r.json 2>&1 | grep -v "^ *$" | cut -c1-160)
  echo "elapsed $(( $(date +%s) - S )) s"
done
for r in new base; do
  case $r in new*) T=$PWD;; base*) T=$BASE;; esac
  echo "== profile $r"; (cd $T/benchmarks && PYTHONPATH=/tmp/site:$T timeout 30 python3 -W ignore profile_jet.py --graphs $D/coAuthorsDBLP.mtx.gz $D/mdual.mtx.gz --profile $D/coAuthorsDBLP.mtx.gz --json $OUT/profile-$r.json 2>&1 | cut -c1-200 | head -45)
  echo "elapsed $(( $(date +%s) - S )) s"
done
