# session 9: the mpi launch test (Open MPI as root allowed), coarsening A/B with more repeats
set -u
S=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name --format=csv,noheader
PYTHONPATH=/tmp/site:$PWD timeout 200 python3 -m pytest -q -m gpu -n 0 -p no:cacheprovider tests/test_mpi_launch.py > $OUT/pytest-mpi-launch.txt 2>&1
tail -1 $OUT/pytest-mpi-launch.txt; grep -E "^FAILED|^E " $OUT/pytest-mpi-launch.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
for k in 1 2; do for t in "7f5e211 .old" "final ."; do set -- $t; echo "== coarsening $1 ($k)"
 (cd $2/benchmarks && PYTHONPATH=/tmp/site:.. timeout 100 python3 -W ignore bench_coarsening.py --backend cupy --graphs laplace3d:100 laplace3d:200 --methods hec mis2 --repeat 9 --json $OUT/coarsening9-$1-$k.json 2>&1 | grep "^laplace" | cut -c1-120); done; done
echo "elapsed $(( $(date +%s) - S )) s"
