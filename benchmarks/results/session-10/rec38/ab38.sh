#!/bin/bash
# Session 10, issue 38: the GPU tests touched, then bench_native.py at 079f126 (old/) and this
# tree alternated twice, then kept38.py; run from the copied tree's root (.h/rec38) on the device.
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site whl/*.whl >/dev/null 2>&1
export GBGRAPH_WARMUP=0 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
NEW=$PWD OLD=$PWD/old
nvidia-smi -L
PYTHONPATH=/tmp/site:$NEW timeout 120 python3 -m pytest -n 16 -q -p no:cacheprovider -W ignore tests/test_program_gpu.py \
  tests/test_backend.py tests/test_gpu.py -k "iterate or program or mis or color or aggregat or coarse or shared or round or trace" \
  2>&1 | grep -v Warn | tail -4
PYTHONPATH=/tmp/site:$NEW timeout 60 python3 -m pytest -n 16 -q -p no:cacheprovider -W ignore -m gpu tests/test_mapping.py \
  2>&1 | grep -v Warn | tail -4
ARGS="--graphs laplace3d:100 laplace3d:200 --algorithms mis2 aggregate color hec"
for i in 1 2; do
  echo "== old (079f126), run $i"
  (cd $OLD && PYTHONPATH=/tmp/site:$OLD python3 benchmarks/bench_native.py $ARGS --json $OUT/old$i.json)
  echo "== new (rec38), run $i"
  PYTHONPATH=/tmp/site:$NEW python3 benchmarks/bench_native.py $ARGS --json $OUT/new$i.json
done
echo "== buffers kept between calls against none (new)"
PYTHONPATH=/tmp/site:$NEW python3 kept38.py 100 200
