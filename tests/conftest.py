import functools
import importlib.util
import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: The project's real graphs; a fresh clone of the package alone does not have them.
SHARED_DATA = pathlib.Path(os.environ.get(
    "GBGRAPH_DATA", pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "data"))


@pytest.fixture
def graphblas_threads():
    """Set the number of CPU threads (GraphBLAS' and the compiled kernels') for one test;
    the old value comes back after it."""
    import gbgraph as gg

    before = gg.backends.set_threads(1)
    yield gg.backends.set_threads
    gg.backends.set_threads(before)


def shared_graphs():
    """Paths of the graphs in ../shared/data, or one skipped parameter when it is absent."""
    paths = sorted(SHARED_DATA.glob("*.mtx.gz")) if SHARED_DATA.is_dir() else []
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no graphs at {SHARED_DATA} (set GBGRAPH_DATA to the shared/data folder)"))]
    return [pytest.param(p, id=p.name.removesuffix(".mtx.gz")) for p in paths]


@functools.cache
def gpu_available():
    """True when CuPy imports and sees at least one GPU."""
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except cupy.cuda.runtime.CUDARuntimeError:
        return False


def backend_params():
    """Every backend, the GPU one marked ``gpu`` and skipped without a GPU."""
    gpu = [pytest.mark.gpu, pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")]
    return [pytest.param("numba", id="numba"), pytest.param("suitesparse", id="suitesparse"),
            pytest.param("cupy", id="cupy", marks=gpu)]
