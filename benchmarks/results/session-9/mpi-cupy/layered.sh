python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $(ls .whl/*.whl | grep -v -e mpi4py -e mpich) >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1
timeout 150 python3 -W ignore .dev8/layered.py 100 > $OUT/layered-100.txt 2>&1; head -8 $OUT/layered-100.txt
NUMBA_NUM_THREADS=1 timeout 100 python3 -W ignore .dev8/layered.py 100 2>&1 | head -5
