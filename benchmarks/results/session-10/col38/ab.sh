#!/bin/bash
# Session 10, issue 38 (col38): the GPU tests touched, then bench_native.py at 16b46ba (BASE)
# and this tree (NEW) alternated twice, then a cProfile of the new tree at 100³ (prof38.py).
# Run from the copied tree's root (.h/col38) on the device; BASE=../col38-base, wheels at ../../.whl.
set -o pipefail
export GBGRAPH_WARMUP=0 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
NEW=$PWD BASE=$(cd ../col38-base && pwd)
nvidia-smi -L
PYTHONPATH=/tmp/site:$NEW timeout 150 python3 -m pytest -n 16 -q -p no:cacheprovider -W ignore \
  -m gpu tests/test_coloring.py tests/test_mis2.py tests/test_mis_family.py tests/test_mapping.py \
  tests/test_program_gpu.py tests/test_native_coloring.py 2>&1 | grep -v Warn | tail -5
PYTHONPATH=/tmp/site:$NEW timeout 120 python3 -m pytest -n 16 -q -p no:cacheprovider -W ignore -m gpu tests/test_gpu.py \
  tests/test_backend.py -k "iterate or program or mis or color or aggregat or coarse or shared or round or trace or hec or mapping or visit or full" \
  2>&1 | grep -v Warn | tail -5
ARGS="--graphs laplace3d:100 laplace3d:200 --algorithms mis2 aggregate color hec"
for i in 1 2; do
  echo "== base (16b46ba), run $i"
  (cd $BASE && PYTHONPATH=/tmp/site:$BASE timeout 90 python3 benchmarks/bench_native.py $ARGS --json $OUT/base$i.json)
  echo "== new (col38), run $i"
  PYTHONPATH=/tmp/site:$NEW timeout 90 python3 benchmarks/bench_native.py $ARGS --json $OUT/new$i.json
done
echo "== cProfile, new, 100^3"
mkdir -p $OUT/prof
PYTHONPATH=/tmp/site:$NEW timeout 60 python3 benchmarks/results/session-10/rec38/prof38.py $OUT/prof 100
