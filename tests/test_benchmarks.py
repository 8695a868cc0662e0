"""Every benchmark script starts: its imports resolve and ``--help`` documents its options.

The benchmarks are not run here (they take minutes and measure, not test); this catches a
script left behind by a refactor of the helpers it imports.
"""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

BENCHMARKS = sorted((pathlib.Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_starts(script):
    if script.stem in ("bench_gpu", "bench_amg_gpu", "bench_native") and importlib.util.find_spec("cupy") is None:
        pytest.skip(f"{script.stem} needs CuPy")
    if script.stem == "bench_mpi" and importlib.util.find_spec("mpi4py") is None:
        pytest.skip("bench_mpi needs mpi4py")
    if script.stem == "bench_scripts" and importlib.util.find_spec("graphblas_algorithms") is None:
        pytest.skip("bench_scripts needs graphblas-algorithms (the scripts-peers extra)")
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--json" in done.stdout
