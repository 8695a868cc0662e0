# the mpi layer's row and index-unary operators on the device: the 2-rank mpi-cupy tests (one GPU), the layered timing
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site2 $(ls .whl/*.whl | grep -v -e mpi4py -e mpich) >/dev/null 2>&1
export GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PYTHONPATH=/tmp/site2:$PWD timeout 100 python3 -W ignore .dev8/layered.py 100 > $OUT/layered-100-after.txt 2>&1; head -4 $OUT/layered-100-after.txt
PYTHONPATH=/tmp/site:$PWD timeout 240 python3 -m pytest -q -m gpu -n 0 -p no:cacheprovider tests/test_mpi_launch.py > $OUT/pytest-mpi-launch-after.txt 2>&1
tail -1 $OUT/pytest-mpi-launch-after.txt; grep -E "^E  " $OUT/pytest-mpi-launch-after.txt | head -40
