#!/bin/bash
# the session-9 A/B run: numba 2 threads wall (the issue's setting), numba 1 thread CPU time,
# suitesparse 2 threads wall on Laplace3D 100³
here=$(cd "$(dirname "$0")" && pwd)
G="laplace3d:100 elasticity3d:40 /work/shared/data/coAuthorsDBLP.mtx.gz /work/shared/data/delaunay_n17.mtx.gz"
echo "# uptime at start: $(uptime)"
echo "## numba, 2 threads, wall time, min of 7, old/new alternated twice"
$here/ab.sh one.py 2 7 2 numba $G
echo "## numba, 1 thread, CPU time (process_time), min of 7, old/new alternated twice"
$here/ab.sh one_cpu.py 1 7 2 numba $G
echo "## suitesparse, 2 threads, wall time, min of 5, alternated twice"
$here/ab.sh one.py 2 5 2 suitesparse laplace3d:100
echo "# uptime at end: $(uptime)"
