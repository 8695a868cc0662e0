#!/bin/bash
# Session 10, issue 38 (col38), second call: the GPU tests of what changed since the first
# (coloring's full starting worklist, HEC's roots numbered by a compaction), then
# bench_native.py at 16b46ba (BASE) and this tree (NEW) alternated twice (MIS-2, coloring, HEC).
# Run from the copied tree's root (.h/col38) on the device; BASE=../col38-base.
set -o pipefail
export GBGRAPH_WARMUP=0 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
NEW=$PWD BASE=$(cd ../col38-base && pwd)
nvidia-smi -L
PYTHONPATH=/tmp/site:$NEW timeout 150 python3 -m pytest -n 16 -q -p no:cacheprovider -W ignore -m gpu \
  tests/test_coloring.py tests/test_mapping.py tests/test_native_coloring.py tests/test_program_gpu.py \
  tests/test_gpu.py -k "color or hec or mapping or gosh or coarse or roots or visit or program or trace or shared" \
  2>&1 | grep -v Warn | tail -5
ARGS="--graphs laplace3d:100 laplace3d:200 --algorithms mis2 color hec"
for i in 1 2; do
  echo "== base (16b46ba), run $i"
  (cd $BASE && PYTHONPATH=/tmp/site:$BASE timeout 80 python3 benchmarks/bench_native.py $ARGS --json $OUT/base$i.json)
  echo "== new (col38), run $i"
  PYTHONPATH=/tmp/site:$NEW timeout 80 python3 benchmarks/bench_native.py $ARGS --json $OUT/new$i.json
done
