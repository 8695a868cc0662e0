#!/bin/bash
G="laplace3d:100 elasticity3d:40 /work/shared/data/coAuthorsDBLP.mtx.gz /work/shared/data/delaunay_n17.mtx.gz"
echo "# uptime at start: $(uptime)"
echo "## numba, 1 thread, CPU time (process_time), min of 7, old/new alternated 3 times"
/tmp/c39/ab_cpu.sh 1 7 3 numba $G
echo "# uptime: $(uptime)"
echo "## numba, 2 threads, wall time, min of 7, old/new alternated 3 times"
/tmp/c39/ab.sh 2 7 3 numba $G
echo "# uptime: $(uptime)"
echo "## suitesparse, 2 threads, wall time, min of 5, alternated 2 times"
/tmp/c39/ab.sh 2 5 2 suitesparse laplace3d:100
echo "# uptime at end: $(uptime)"
