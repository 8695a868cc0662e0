# sourced on the device from the worktree copy's root
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD GBGRAPH_WARMUP=0 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 HYPOTHESIS_PROFILE=ci
# the mpich wheel unpacked by hand: pip --target drops its lib/ (data files)
python3 -m zipfile -e ../.whl/mpich-*.whl /tmp/mpich
D=$(dirname $(find /tmp/mpich -name 'libmpi.so.12' | head -1))/..
chmod +x $D/bin/*
export PATH=$D/bin:$PATH MPI4PY_MPIABI=mpich MPI4PY_LIBMPI=$D/lib/libmpi.so.12 LD_LIBRARY_PATH=$D/lib:${LD_LIBRARY_PATH:-}
SIZE=$(mpiexec -n 2 python3 -c "from mpi4py import MPI; c = MPI.COMM_WORLD; c.Get_rank() or print('size', c.Get_size())" 2>&1 | grep -c "^size 2")
if [ "$SIZE" != "1" ]; then  # fall back to the image's Open MPI
  echo "mpich failed ($SIZE); Open MPI"
  unset MPI4PY_LIBMPI; export MPI4PY_MPIABI=openmpi
  mkdir -p /tmp/ompi; R=$(command -v mpirun.openmpi || echo /usr/bin/mpirun)
  printf '#!/bin/sh\nexec %s --allow-run-as-root --oversubscribe "$@"\n' "$R" > /tmp/ompi/mpiexec; chmod +x /tmp/ompi/mpiexec
  export PATH=/tmp/ompi:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpiexec -n 2 python3 -c "from mpi4py import MPI; print('rank', MPI.COMM_WORLD.Get_rank(), 'of', MPI.COMM_WORLD.Get_size(), MPI.Get_library_version()[:24])"
nvidia-smi -L
