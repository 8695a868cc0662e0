#!/bin/bash
# hashes.sh: hashes.py for the before tree (/tmp/before_ss39) and this tree, numba and
# suitesparse, 1 and 2 threads, into hashes/{old,new}-BACKEND-THREADS.json
HERE=$(cd "$(dirname "$0")" && pwd); NEW=$(cd "$HERE/../../../.." && pwd); D=/work/shared/data
mkdir -p "$HERE/hashes"
SPECS="laplace3d:100 elasticity3d:40 $D/coAuthorsDBLP.mtx.gz $D/delaunay_n17.mtx.gz $D/4elt.mtx.gz $D/c-55.mtx.gz $D/wiki-Vote.mtx.gz $D/usroads.mtx.gz $D/astro-ph.mtx.gz $D/PGPgiantcompo.mtx.gz $D/rgg_n_2_15_s0.mtx.gz $D/fe_4elt2.mtx.gz $D/cond-mat-2005.mtx.gz $D/delaunay_n14.mtx.gz"
for b in suitesparse numba; do for t in 1 2; do for tree in old new; do
  P=/tmp/before_ss39; [ $tree = new ] && P=$NEW
  PYTHONPATH=$P GBGRAPH_WARMUP=0 /work/venv/bin/python "$HERE/hashes.py" $b $t $SPECS > "$HERE/hashes/$tree-$b-$t.json"
done; done; done
