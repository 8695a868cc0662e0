# one GPU: 2-rank mpi-cupy tests (ranks share the GPU: ghosts through the host), profiles new/old
set -u
ROOT=$PWD; NEW=$ROOT/.h/mpi41; P=$NEW/benchmarks/results/session-10/mpi-cupy
cd $NEW; WHL=$ROOT/.whl . $P/setup.sh > $OUT/setup.txt 2>&1; tail -1 $OUT/setup.txt
echo "== tests (2 ranks, one GPU, new)"
PYTHONPATH=/tmp/site:$NEW GBGRAPH_TEST_MPI_BACKEND=mpi-cupy MPIEXEC_TIMEOUT=70 timeout 75 mpiexec -n 2 python3 -m pytest -n 0 -p no:cacheprovider -q -m "" tests/test_mpi.py -k "grids and laplace and (mis2 or aggregate) and not mapping and not coarsen and not misk or fused or masked_product or row_operator or nccl or extract or vector_verbs or greedy" > $OUT/tests-1gpu.txt 2>&1
grep -E "passed|failed|^E " $OUT/tests-1gpu.txt | head -20
for T in new old; do
  [ $T = new ] && cd $NEW || cd $NEW/old
  echo "== profile $T (2 ranks, one GPU)"
  REPEAT=2 PYTHONPATH=/tmp/site:$PWD timeout 45 mpiexec -n 2 python3 -W ignore $P/prof41.py 200 mis2 aggregate > $OUT/profile-$T-2r.txt 2>&1
  grep -E "ms;|Error|error" $OUT/profile-$T-2r.txt | head
done
cd $NEW; echo "== layered 1 rank (new)"
REPEAT=2 PYTHONPATH=/tmp/site:$PWD timeout 30 python3 -W ignore $P/prof41.py 200 mis2 aggregate > $OUT/profile-new-layered.txt 2>&1
grep -E "ms;|Error|error" $OUT/profile-new-layered.txt | head
