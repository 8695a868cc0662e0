python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .h/lead/whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/jet.txt
D=$PWD/.h/lead/data
cd benchmarks
G="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
for n in 1 2; do
  timeout 100 python bench_partition.py --backend cupy --tries 1 --k 2 --repeat 5 --threads 16 --only hec+jet kaminpar --json $OUT/jet-$n.json --graphs $G 2>&1 | grep -v "^ *$" | tail -12 | tee -a $OUT/jet.txt
done
timeout 45 python profile_jet.py --repeat 2 --json $OUT/profile.json --graphs laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz > $OUT/profile.txt 2>&1; tail -30 $OUT/profile.txt
