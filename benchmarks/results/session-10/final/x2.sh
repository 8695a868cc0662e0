# session 10: on two GPUs, the 2-rank mpi-cupy subset that hung (stacks dumped at 20 s), then the GPU suite of the merged tree
set -u
S=$(date +%s)
ROOT=$PWD; WHL=$ROOT/.whl . benchmarks/results/session-10/mpi-cupy/setup.sh > $OUT/setup.txt 2>&1; tail -3 $OUT/setup.txt
export PYTHONPATH=/tmp/site:$ROOT OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
K="nccl or masked_product or fused or extract or (grids and laplace and (mis2 or aggregate) and not mapping and not coarsen and not misk)"
echo "== 2-rank mpi-cupy subset on 2 GPUs"
GBGRAPH_TEST_MPI_BACKEND=mpi-cupy MPIEXEC_TIMEOUT=50 timeout 55 mpiexec -n 2 python3 -X faulthandler -m pytest -n 0 -p no:cacheprovider -v -m "" -o faulthandler_timeout=25 tests/test_mpi.py -k "$K" > $OUT/tests-2gpu.txt 2>&1
grep -E "PASSED|FAILED|passed|failed|Timeout|^E " $OUT/tests-2gpu.txt | head -30
grep -n -A12 "Timeout (0:00:25)" $OUT/tests-2gpu.txt | grep -E "File|Thread" | head -40
echo "elapsed $(( $(date +%s) - S )) s"
echo "== GPU suite"
timeout ${SUITE_T:-140} python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests > $OUT/pytest-gpu.txt 2>&1
tail -1 $OUT/pytest-gpu.txt; grep -E "^FAILED|^ERROR" $OUT/pytest-gpu.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
