set -u
. .devscripts/setup.sh > $OUT/setup.txt 2>&1
tail -5 $OUT/setup.txt
echo "== mpi-cupy tests on 2 ranks (subset)"
GBGRAPH_TEST_MPI_BACKEND=mpi-cupy MPIEXEC_TIMEOUT=25 timeout 28 mpiexec -n 2 python3 -m pytest -n 0 -p no:cacheprovider -q -m "" tests/test_mpi.py -k "nccl or communicator" > $OUT/tests.txt 2>&1
GBGRAPH_TEST_MPI_BACKEND=mpi-cupy MPIEXEC_TIMEOUT=30 timeout 33 mpiexec -n 2 python3 -m pytest -n 0 -p no:cacheprovider -q -m "" tests/test_mpi.py -k "grids and laplace and (mis2 or aggregate) and not mapping and not coarsen and not misk" >> $OUT/tests.txt 2>&1
grep -E "passed|failed|FAIL|Error" $OUT/tests.txt | tail -8
echo "== bench"
timeout 230 python3 benchmarks/bench_mpi.py --blocks cupy --ranks 1 2 --graphs laplace3d:100 laplace3d:200 laplace3d:400 --weak 300 --repeat 2 --bind none --json $OUT/mpi-cupy.json > $OUT/mpi-cupy.txt 2>&1
echo "rc $?"; grep -v "^ *$" $OUT/mpi-cupy.txt | cut -c1-260 | tail -70
