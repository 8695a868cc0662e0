set -u
. .devscripts/setup.sh > $OUT/setup.txt 2>&1
GBGRAPH_TEST_MPI_BACKEND=mpi-cupy MPIEXEC_TIMEOUT=40 timeout 45 mpiexec -n 2 python3 -m pytest -n 0 -p no:cacheprovider -q -m "" tests/test_mpi.py -k "nccl or (grids and laplace and (mis2 or aggregate) and not mapping and not coarsen and not misk)" > $OUT/tests-after.txt 2>&1
grep -E "passed|failed|FAIL|Error" $OUT/tests-after.txt | tail -6
timeout 100 python3 benchmarks/bench_mpi.py --blocks cupy --ranks 2 --graphs laplace3d:100 laplace3d:200 --repeat 2 --bind none --host-replies --json $OUT/mpi-cupy-after.json > $OUT/mpi-cupy-after.txt 2>&1
echo "rc $?"; grep "ranks (mpi-cupy)" $OUT/mpi-cupy-after.txt | cut -c1-230
