sed 's#\.\./\.whl#.whl#g' benchmarks/results/session-9/mpi-cupy/setup.sh > /tmp/setup.sh
. /tmp/setup.sh > $OUT/setup.txt 2>&1
export PYTHONPATH=/tmp/site:$PWD GBGRAPH_WARMUP=0
timeout 300 python -m pytest -q -m gpu -n 16 -p no:cacheprovider tests 2>&1 | tail -25 > $OUT/pytest.txt
tail -5 $OUT/pytest.txt
