"""tests/test_mpi.py under ``mpiexec -n 2`` and ``-n 3``: the mpi backend's results on two
and three ranks (oversubscribed on a 2-core machine), from a plain ``pytest`` run (and
tests/test_operators_mpi.py's user-defined operators, the same way); and on
two ranks with their blocks on the GPU (``mpi-cupy``, a gpu test). The conformance suite's
mpi cases (tests/test_conformance.py ``-k mpi``: every protocol verb against python-graphblas)
under ``mpiexec -n 2`` and ``-n 3`` too, each rank comparing the result it holds.

mpiexec comes with the ``mpich`` wheel of the ``test`` (and ``mpi``) extras, next to the
Python that runs the tests; without mpi4py or an mpiexec the runs skip.
"""

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import gpu_available

TESTS = pathlib.Path(__file__).resolve().parent
#: Seconds one run may take before mpiexec stops it (a rank that raised alone would leave
#: the others waiting in a collective).
TIMEOUT = 900


def _mpiexec():
    beside = pathlib.Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


def _run_tests(ranks, module="test_mpi.py", pytest_args=(), timeout=TIMEOUT, **env):
    """tests/``module`` under ``mpiexec -n ranks`` with ``pytest_args`` and ``env`` added,
    stopped after ``timeout`` seconds; asserts they pass."""
    env = dict(os.environ, MPIEXEC_TIMEOUT=str(timeout), HYPOTHESIS_PROFILE="ci", **env)
    run = subprocess.run([_mpiexec(), "-n", str(ranks), sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(TESTS / module), *pytest_args], cwd=TESTS.parent, env=env, capture_output=True, text=True,
                         timeout=timeout + 60)
    assert run.returncode == 0, (f"mpiexec -n {ranks} ({env.get('GBGRAPH_TEST_MPI_BACKEND', 'mpi')}): exit status "
                                 f"{run.returncode}\n{run.stdout[-6000:]}\n{run.stderr[-3000:]}")


pytestmark = [pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None, reason="needs mpi4py (pip install -e '.[mpi]')"),
              pytest.mark.skipif(_mpiexec() is None, reason="needs an mpiexec (the mpich wheel brings one)")]


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [2, 3])
def test_mpi_tests_pass_on_several_ranks(ranks):
    _run_tests(ranks)


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [2, 3])
def test_operators_on_several_ranks(ranks):
    _run_tests(ranks, "test_operators_mpi.py")


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [2, 3])
def test_conformance_on_several_ranks(ranks):
    # 13 409 cases of a few collectives each: 10-20 minutes on ranks oversubscribed 3 to 2 cores
    _run_tests(ranks, "test_conformance.py", ("-k", "mpi", "-m", ""), timeout=2400)  # -m "": its slow marks too


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
def test_mpi_tests_pass_with_blocks_on_the_gpu():
    # two ranks taking the node's GPUs in turn (one GPU: both on it)
    _run_tests(2, GBGRAPH_TEST_MPI_BACKEND="mpi-cupy")
