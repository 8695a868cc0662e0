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

#: Small real graphs shipped with the tests; tests/data/README.md gives their sources and licences.
TEST_DATA = pathlib.Path(__file__).resolve().parent / "data"
#: The project's larger real graphs, optional: beside the repository as ../shared/data, or
#: wherever GBGRAPH_DATA names. A fresh clone runs the shipped graphs alone.
SHARED_DATA = pathlib.Path(os.environ.get(
    "GBGRAPH_DATA", pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def _shipped_graphs():
    """{name: path} of the real graphs in the repository: tests/data and the package's own."""
    import gbgraph as gg

    graphs = {name: pathlib.Path(gg.datasets.path(name)) for name in gg.datasets.names()}
    graphs.update((p.name.removesuffix(".mtx.gz"), p) for p in TEST_DATA.glob("*.mtx.gz"))
    return graphs


def real_graph(name):
    """Path of the real graph ``name`` (a ``.mtx.gz`` file): a shipped one, or one of
    SHARED_DATA; the test skips, saying where to get it, when it is in neither."""
    shipped = _shipped_graphs()
    if name in shipped:
        return shipped[name]
    path = SHARED_DATA / f"{name}.mtx.gz"
    if not path.exists():
        pytest.skip(f"{name}.mtx.gz is not shipped and not in {SHARED_DATA}: set GBGRAPH_DATA to a folder "
                    f"holding it (tests/data/README.md says where to get it)")
    return path


def shared_graphs():
    """Parameters of every real graph: the shipped ones, and the larger ones of SHARED_DATA
    when it is there (else one skipped parameter that says where to get them)."""
    graphs = _shipped_graphs()
    params = []
    if SHARED_DATA.is_dir():
        graphs = {p.name.removesuffix(".mtx.gz"): p for p in SHARED_DATA.glob("*.mtx.gz")} | graphs
    else:
        params.append(pytest.param(None, id="larger-graphs", marks=pytest.mark.skip(
            reason=f"ran the {len(graphs)} real graphs shipped in the repository; the larger ones are not in "
                   f"{SHARED_DATA}: set GBGRAPH_DATA to a folder holding them (tests/data/README.md lists them)")))
    return [pytest.param(graphs[name], id=name) for name in sorted(graphs)] + params


@pytest.fixture
def graphblas_threads():
    """Set the number of CPU threads (GraphBLAS' and the compiled kernels') for one test;
    the old value comes back after it."""
    import gbgraph as gg

    before = gg.backends.set_threads(1)
    yield gg.backends.set_threads
    gg.backends.set_threads(before)


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


@pytest.fixture(autouse=True)
def _gpu_levels_stay_on_the_gpu(request, monkeypatch):
    """GPU tests compare the cupy backend with the CPU ones: hierarchies stay on the GPU to
    their last level (:data:`gbgraph.algorithms.coarsen.HOST_LEVEL_ENTRIES`), unless a test
    is marked ``host_levels``."""
    if request.node.get_closest_marker("gpu") and not request.node.get_closest_marker("host_levels"):
        from gbgraph.algorithms import coarsen

        monkeypatch.setattr(coarsen, "HOST_LEVEL_ENTRIES", -1)
