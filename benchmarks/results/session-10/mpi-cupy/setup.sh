# sourced on the device from the tree to run (its root the cwd); WHL: the folder of wheels
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $WHL/*.whl >/dev/null 2>&1
export GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 HYPOTHESIS_PROFILE=ci
# the mpich wheel unpacked by hand: pip --target drops its lib/ (data files)
[ -d /tmp/mpich ] || python3 -m zipfile -e $WHL/mpich-*.whl /tmp/mpich
D=$(dirname $(find /tmp/mpich -name 'libmpi.so.12' | head -1))/..
chmod +x $D/bin/*
export PATH=$D/bin:$PATH MPI4PY_MPIABI=mpich MPI4PY_LIBMPI=$D/lib/libmpi.so.12 LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
PYTHONPATH=/tmp/site mpiexec -n 2 python3 -c "from mpi4py import MPI; print('rank', MPI.COMM_WORLD.Get_rank(), 'of', MPI.COMM_WORLD.Get_size(), MPI.Get_library_version()[:24])"
nvidia-smi -L
