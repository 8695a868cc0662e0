#!/bin/sh
# one cold-cache first use of `gbgraph mis2 laplace3d:50` from tree $1; ends the warm-up it started (by pid)
C=$(mktemp -d /tmp/small39/fbcache-XXXXXX)
env -u GBGRAPH_WARMUP PYTHONPATH="$1" NUMBA_CACHE_DIR="$C" /work/venv/bin/python -c "import sys; sys.argv=['gbgraph','mis2','laplace3d:50']; from gbgraph.cli import main; main()" > /dev/null
for p in $(pgrep -f "$C"); do kill -9 "$p"; done
rm -rf "$C"
