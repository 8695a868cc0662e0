set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1
B="--graphs laplace3d:100 --algorithms mis2 aggregate color"
old() { (cd .old/benchmarks && PYTHONPATH=/tmp/site:.. timeout 60 python3 -W ignore bench_native.py $B --json $OUT/ab-old-$1.json 2>&1 | tail -3 | cut -c1-110); }
new() { (cd benchmarks && PYTHONPATH=/tmp/site:.. VARIANT=$2 timeout 60 python3 -W ignore ../.dev6/variant.py bench_native.py $B --json $OUT/ab-$2-$1.json 2>&1 | tail -3 | cut -c1-110); }
for k in 1 2 3; do echo "== old $k"; old $k; echo "== new $k"; new $k all; echo "== nocheck $k"; new $k nocheck; echo "== nocolor $k"; new $k nocolor; done
