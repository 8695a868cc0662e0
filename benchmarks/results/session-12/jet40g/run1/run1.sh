# jet40g device run 1: A/B (old = 6bc62d6, new = this branch) of GPU Jet; hashes, bench, profile, GPU tests.
# Run from .h/jet40g (new tree; old/ overlay holds the base versions of the changed files).
set -u
S=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf /tmp/old && mkdir /tmp/old && git ls-files >/dev/null 2>&1; cp -a . /tmp/old/ && cp -a old/. /tmp/old/ && rm -f /tmp/old/gbgraph/backends/cupy/kernels/jet.cu
G="laplace3d:100 data/coAuthorsDBLP.mtx.gz data/delaunay_n17.mtx.gz data/mdual.mtx.gz data/usroads-48.mtx.gz data/usroads.mtx.gz data/wave.mtx.gz"
H="laplace3d:40 data/coAuthorsDBLP.mtx.gz data/delaunay_n17.mtx.gz data/usroads.mtx.gz data/wave.mtx.gz"
echo "== hashes new"; timeout 60 python3 -W ignore jet_hashes.py $H 2>&1 | tee $OUT/hash-new.txt
echo "== hashes old"; (cd /tmp/old && PYTHONPATH=/tmp/site:/tmp/old timeout 60 python3 -W ignore jet_hashes.py $H 2>&1 | tee $OUT/hash-old.txt)
echo "elapsed $(( $(date +%s) - S )) s"
GB=$(for g in $G; do case $g in data/*) echo ../$g;; *) echo $g;; esac; done)
echo "== bench new (with kaminpar 16 threads)"; (cd benchmarks && timeout 60 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 3 --threads 16 --only hec+jet kaminpar --graphs $GB --json $OUT/bench-new.json 2>&1 | tee $OUT/bench-new.txt | grep -v "^ *$" | cut -c1-160)
echo "== bench old"; (cd /tmp/old/benchmarks && PYTHONPATH=/tmp/site:/tmp/old timeout 50 python3 -W ignore bench_partition.py --backend cupy --tries 1 --k 2 --repeat 3 --threads 16 --only hec+jet --graphs $GB --json $OUT/bench-old.json 2>&1 | tee $OUT/bench-old.txt | grep -v "^ *$" | cut -c1-160)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== profile new"; (cd benchmarks && timeout 40 python3 -W ignore profile_jet.py --graphs laplace3d:100 ../data/coAuthorsDBLP.mtx.gz ../data/delaunay_n17.mtx.gz --json $OUT/profile-new.json > $OUT/profile-new.txt 2>&1; cut -c1-200 $OUT/profile-new.txt)
echo "elapsed $(( $(date +%s) - S )) s"
echo "== tests"; timeout 130 python3 -m pytest -q -m gpu -n 16 -p no:cacheprovider tests/test_jet.py tests/test_partition.py tests/test_gpu.py > $OUT/pytest.txt 2>&1
tail -1 $OUT/pytest.txt; grep -E "^FAILED|^ERROR|Error" $OUT/pytest.txt | head -20
echo "elapsed $(( $(date +%s) - S )) s"
