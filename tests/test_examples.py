"""The semiring scripts in docs/examples run unchanged on every backend, with equal results."""

import importlib.util
import pathlib

import numpy as np
import pytest

from conftest import backend_params

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "docs" / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("backend", backend_params())
def test_luby_round(backend):
    joined, left = _load("luby_round").main(backend)
    reference, reference_left = _load("luby_round").main("suitesparse")
    np.testing.assert_array_equal(joined, reference)
    assert left == reference_left
    import gbgraph as gg

    A = gg.generators.laplace3d(20)
    assert gg.validate.is_independent(A, joined)


@pytest.mark.parametrize("backend", backend_params())
def test_bfs_level(backend):
    levels = _load("bfs_level").main(backend)
    assert levels == _load("bfs_level").main("suitesparse")
    nx, ny, nz = 12, 10, 8
    ids = np.arange(nx * ny * nz)
    manhattan = ids % nx + (ids // nx) % ny + ids // (nx * ny)  # distance from the corner
    assert levels == manhattan.tolist()


def test_readme_bfs_script_runs_as_written():
    readme = (EXAMPLES.parents[1] / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    (script,) = [b for b in blocks if "def bfs_levels" in b]
    namespace = {}
    exec(compile(script, "README.md", "exec"), namespace)
    nx, ny, nz = 12, 10, 8
    ids = np.arange(nx * ny * nz)
    manhattan = ids % nx + (ids // nx) % ny + ids // (nx * ny)  # distance from the corner
    np.testing.assert_array_equal(namespace["levels"], manhattan)
