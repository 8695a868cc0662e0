set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .h/lead/whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD GBGRAPH_WARMUP=0 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/log
timeout 150 python -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py tests/test_partition.py tests/test_coarsen.py tests/test_gpu.py 2>&1 | tail -15 | tee -a $OUT/log
D=$PWD/.h/lead/data
cd benchmarks
R=$OLDPWD
G="laplace3d:100 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/mdual.mtx.gz $D/usroads-48.mtx.gz $D/usroads.mtx.gz $D/wave.mtx.gz"
b() { PYTHONPATH=$1 timeout 120 python bench_partition.py --backend cupy --tries 1 --k 2 --repeat 5 --threads 16 --only $2 --json $OUT/bench-$3.json --graphs $G 2>&1 | grep -v "^ *$" | tail -14 | tee -a $OUT/log; }
b /tmp/site:$R "hec+jet kaminpar" new1
b /tmp/site:$R/.h/jet41-base hec+jet base1
b /tmp/site:$R "hec+jet kaminpar" new2
