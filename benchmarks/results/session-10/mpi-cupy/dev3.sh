# two GPUs (one per rank, NCCL): the 2-rank mpi-cupy tests, bench_mpi.py --blocks cupy, prof41.py
set -u
ROOT=$PWD; NEW=$ROOT/.h/mpi41; P=$NEW/benchmarks/results/session-10/mpi-cupy
cd $NEW; WHL=$ROOT/.whl . $P/setup.sh > $OUT/setup.txt 2>&1; tail -3 $OUT/setup.txt
export PYTHONPATH=/tmp/site:$NEW
echo "== tests (2 ranks, 2 GPUs, NCCL)"
GBGRAPH_TEST_MPI_BACKEND=mpi-cupy MPIEXEC_TIMEOUT=40 timeout 45 mpiexec -n 2 python3 -m pytest -n 0 -p no:cacheprovider -q -m "" tests/test_mpi.py -k "nccl or masked_product or fused or extract or (grids and laplace and (mis2 or aggregate) and not mapping and not coarsen and not misk)" > $OUT/tests-2gpu.txt 2>&1
grep -E "passed|failed|^E " $OUT/tests-2gpu.txt | head -12
echo "== bench"
timeout 150 python3 benchmarks/bench_mpi.py --blocks cupy --ranks 1 2 --graphs laplace3d:200 laplace3d:400 --weak 300 --layered 0 --repeat 2 --bind none --json $OUT/mpi-cupy.json > $OUT/mpi-cupy.txt 2>&1
echo "rc $?"; grep -v "^ *$" $OUT/mpi-cupy.txt | cut -c1-300 | tail -45
echo "== profile (2 ranks, 2 GPUs)"
REPEAT=2 timeout 30 mpiexec -n 2 python3 -W ignore $P/prof41.py 200 mis2 aggregate > $OUT/profile-2gpu.txt 2>&1
grep -E "ms;|Error" $OUT/profile-2gpu.txt | cut -c1-220
