"""Collection rules for the whole repository (tests/ and the doctests in gbgraph/)."""

import importlib.util
import os

import pytest

# The default CPU backend is numba from the first test, not suitesparse while a background
# process compiles the kernels (docs/backends.md, "First use"): tests compile what they call.
os.environ.setdefault("GBGRAPH_WARMUP", "0")

# gg.plot's doctests draw on new pyplot figures: no display is needed or wanted
os.environ.setdefault("MPLBACKEND", "Agg")

# The GPU backend's modules import CuPy; without it, their doctests cannot be collected.
collect_ignore = [] if importlib.util.find_spec("cupy") else ["gbgraph/backends/cupy", "gbgraph/backends/native",
                                                                  "gbgraph/solvers/gauss_seidel_gpu.py",
                                                                  "gbgraph/amg/device_cycle.py"]
# The mpi backend's modules import mpi4py (gbgraph.distributed's examples need it too).
if importlib.util.find_spec("mpi4py") is None:
    collect_ignore += ["gbgraph/backends/mpi", "gbgraph/distributed.py"]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """Workers for ``-n auto`` (pyproject's addopts): one per CPU this process may use, as
    ``nproc`` counts them (xdist counts physical cores where psutil is installed: half the
    vCPUs of many cloud machines); none under mpiexec, where each MPI rank is one process of
    tests/test_mpi.py and a worker of its own would not be a rank."""
    if "PMI_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ:
        return 0
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
