# session 10 final device run: the GPU suite on the merged tree, then native + coarsening A/B (079f126 in .old vs this tree), alternated
set -u
S=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $(ls .whl/*.whl | grep -v -e mpi4py -e mpich) >/dev/null 2>&1
export GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=name --format=csv,noheader
PYTHONPATH=/tmp/site:$PWD timeout ${SUITE_T:-260} python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests > $OUT/pytest-gpu.txt 2>&1
tail -1 $OUT/pytest-gpu.txt; grep -E "^FAILED|^ERROR" $OUT/pytest-gpu.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
B="--graphs laplace3d:100 laplace3d:200 --algorithms mis2 aggregate color hec"
for k in 1 2; do for t in "079f126 .oldlite" "final ."; do set -- $t
 if [ $(( $(date +%s) - S )) -lt ${LIM:-480} ]; then echo "== native $1 ($k)"; (cd $2/benchmarks && PYTHONPATH=/tmp/site:.. timeout 100 python3 -W ignore bench_native.py $B --json $OUT/native-$1-$k.json 2>&1 | grep -E "laplace|mis2|color|aggregate|hec|price" | cut -c1-150); fi
done; done
for t in "079f126 .oldlite" "final ."; do set -- $t
 if [ $(( $(date +%s) - S )) -lt ${LIM:-480} ]; then echo "== coarsening $1"; (cd $2/benchmarks && PYTHONPATH=/tmp/site:.. timeout 100 python3 -W ignore bench_coarsening.py --backend cupy --graphs laplace3d:100 laplace3d:200 --methods hec mis2 --repeat 3 --json $OUT/coarsening-$1.json 2>&1 | grep "^laplace" | cut -c1-120); fi
done
echo "elapsed $(( $(date +%s) - S )) s"
