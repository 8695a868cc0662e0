"""First use and threads: the serial twins of the numba kernels give the parallel kernels'
results bit for bit, the default CPU backend follows the background compilation's stamp,
and the cache needs no writable package directory."""

import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import gbgraph as gg
from gbgraph.backends.numba.kernels import coarse, coloring, products, threads
from gbgraph.generators import elasticity3d, laplace3d

import algorithm_calls

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALGORITHMS = {
    **algorithm_calls.ALGORITHMS,
    "coarsen-sort": lambda A, b: gg.coarse_graph(A, gg.aggregate(A, backend=b).labels, "sort", backend=b).data,
    "partition": lambda A, b: gg.partition(abs(A), 3, backend=b).parts,
}


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("make", [lambda: laplace3d(9, 8, 7), lambda: elasticity3d(4, 3, 3)], ids=["laplace", "elasticity"])
def test_parallel_regions_give_the_serial_results(monkeypatch, make, name):
    A = make()
    before = gg.backends.set_threads(2)
    try:
        serial = ALGORITHMS[name](A, "numba")
        monkeypatch.setattr(threads, "PARALLEL_WORK", 0)  # every kernel a parallel region
        monkeypatch.setattr(coarse, "_ENTRIES_PER_THREAD", 1)
        parallel = ALGORITHMS[name](A, "numba")
    finally:
        gg.backends.set_threads(before)
    np.testing.assert_array_equal(np.asarray(parallel), np.asarray(serial), err_msg=name)


@numba.njit(parallel=True)
def _row_lengths(indptr, out):
    for i in numba.prange(out.size):
        out[i] = indptr[i + 1] - indptr[i]


@numba.njit(parallel=True)
def _longest_row(indptr):
    lengths = np.empty(indptr.size - 1, np.int64)
    _row_lengths(indptr, lengths)
    return lengths.max()


def test_a_serial_twin_has_no_parallel_loop_or_callee():
    twin = threads.serial_twin(_longest_row)
    assert not twin.targetoptions["parallel"]
    callee = twin.py_func.__globals__["_row_lengths"]
    assert callee is not _row_lengths and not callee.targetoptions["parallel"]
    assert twin(np.array([0, 2, 7, 8], np.int64)) == 5
    assert threads.serial_twin(coloring._counting_order) is coloring._counting_order  # serial already


def test_kernels_run_parallel_only_above_the_threshold(monkeypatch):
    kernel = products.pull_second
    indptr = np.array([0, 1, 2], np.int64)
    rows = np.arange(2)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    monkeypatch.setattr(threads, "PARALLEL_WORK", 3)
    assert kernel.choose(indptr, None, None, None, None, rows, False) is kernel.serial  # 2 entries
    monkeypatch.setattr(threads, "PARALLEL_WORK", 2)
    assert kernel.choose(indptr, None, None, None, None, rows, False) is kernel.parallel
    assert kernel.choose(indptr, None, None, None, None, rows=rows, all_rows=False) is kernel.parallel
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)
    assert kernel.choose(indptr, None, None, None, None, rows, False) is kernel.serial


def _run(code, cache, **environment):
    env = {k: v for k, v in os.environ.items() if k != "GBGRAPH_WARMUP"}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=ROOT, **environment)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_default_backend_follows_the_stamp(tmp_path):
    # a fresh lock stands for a warm-up under way: no process is started here
    code = """
        import pathlib, gbgraph as gg
        from gbgraph import _warmup
        stamp = pathlib.Path(_warmup._stamp())
        pathlib.Path(str(stamp) + ".lock").touch()
        print(gg.backend().name, gg.mis2(gg.generators.laplace3d(4)).vertices.size)
        stamp.touch()
        print(gg.backend().name, gg.mis2(gg.generators.laplace3d(4)).vertices.size)
    """
    first, first_size, then, then_size = _run(code, tmp_path)
    assert (first, then) == ("suitesparse", "numba")
    assert first_size == then_size
    assert _run("import gbgraph as gg; print(gg.backend().name)", tmp_path / "other", GBGRAPH_WARMUP="0") == ["numba"]


def test_warmup_starts_once_and_again_after_a_stale_lock(tmp_path, monkeypatch):
    from gbgraph import _warmup

    started = []
    monkeypatch.setattr(_warmup.subprocess, "Popen", lambda command, **options: started.append((command, options)))
    stamp = str(tmp_path / "gbgraph-warm-test")
    _warmup._start(stamp)
    _warmup._start(stamp)
    assert len(started) == 1
    command, options = started[0]
    assert command[-2:] == ["gbgraph._warmup", stamp] and options["env"]["GBGRAPH_WARMUP"] == "running"
    assert options["start_new_session"]
    old = os.path.getmtime(stamp + ".lock") - _warmup._STALE - 1
    os.utime(stamp + ".lock", (old, old))
    _warmup._start(stamp)
    assert len(started) == 2


def test_a_failed_warmup_still_leaves_its_stamp(tmp_path, monkeypatch):
    from gbgraph import _warmup

    def fail():
        raise RuntimeError("no compiler")

    monkeypatch.setattr(_warmup, "_workload", fail)
    monkeypatch.setattr(_warmup.os, "nice", lambda increment: 0)
    stamp = tmp_path / "gbgraph-warm-test"
    (tmp_path / "gbgraph-warm-test.lock").touch()
    with pytest.raises(RuntimeError, match="no compiler"):
        _warmup.main(str(stamp))
    assert stamp.exists() and not (tmp_path / "gbgraph-warm-test.lock").exists()


def test_warmup_graphs_are_what_as_graph_makes():
    from gbgraph import _warmup

    A = laplace3d(4)
    for mine, reference in zip(_warmup._small_graphs(), (gg.as_graph(A, weights=False), gg.as_graph(A),
                                                         gg.as_graph(abs(A)))):
        assert (mine.n, mine.container) == (reference.n, reference.container)
        arrays = [(mine.indptr, reference.indptr), (mine.indices, reference.indices),
                  *zip(mine.input_closed_csr(), reference.input_closed_csr())]
        if reference.weights is None:
            assert mine.weights is None
        else:
            arrays.append((mine.weights, reference.weights))
        for a, b in arrays:
            assert a.dtype == b.dtype and np.array_equal(a, b)


def test_warmup_compiles_what_suitesparse_mis2_needs_first(tmp_path):
    # the warm-up's first calls, on its scipy-made graph, leave every kernel that a session's
    # suitesparse MIS-2 runs in the cache: that session then compiles nothing for it
    _run("import gbgraph as gg; from gbgraph._warmup import _small_graphs; "
         "gg.mis1(_small_graphs()[0], backend='suitesparse'); gg.mis2(_small_graphs()[0], backend='suitesparse')",
         tmp_path, GBGRAPH_WARMUP="0")
    code = """
        from numba.core import event
        import gbgraph as gg
        G = gg.as_graph(gg.generators.laplace3d(6))
        compiled = []

        class Recorder(event.Listener):
            def on_start(self, e):
                compiled.append(e.data["dispatcher"])

            def on_end(self, e):
                pass

        event.register("numba:compile", Recorder())
        print(gg.mis2(G, backend="suitesparse").vertices.size, len(compiled))
    """
    size, compiled = _run(code, tmp_path, GBGRAPH_WARMUP="0")
    assert int(size) > 0 and compiled == "0"


def test_warmup_runs_suitesparse_first_mis1_mis2_then_the_partitioner(monkeypatch):
    from gbgraph import _warmup

    calls = []
    for name in ("mis2", "partition", "color", "aggregate", "coarsen", "mis1"):
        monkeypatch.setattr(gg, name, lambda *args, backend, _name=name, **options: calls.append((_name, backend)))
    monkeypatch.setattr(gg, "as_graph", lambda A: calls.append(("as_graph", None)))
    _warmup._workload()
    backends = [backend for _, backend in calls]
    assert calls[:4] == [("mis1", "suitesparse"), ("mis2", "suitesparse"), ("mis2", "suitesparse"),
                         ("partition", "suitesparse")]
    last_suitesparse = max(k for k, backend in enumerate(backends) if backend == "suitesparse")
    assert last_suitesparse < calls.index(("as_graph", None)) < backends.index("numba")


def test_warmup_mis1_leaves_suitesparse_mis2_only_its_statuses_and_pull_kernels(tmp_path):
    # the warm-up's first calls, MIS-1 and MIS-2 with fixed statuses, compile MIS-2's round
    # operators (the column pass is the second's): after them, a session's
    # suitesparse MIS-2 compiles only the kernels of its hashed statuses and of its masked
    # pulls, which that backend replaces by uncompiled paths while the warm-up compiles
    # (_warmup.compiling; test_suitesparse_paths checks that they are not called then)
    _run("import gbgraph as gg; from gbgraph._warmup import _small_graphs; G = _small_graphs()[0]; "
         "gg.mis1(G, backend='suitesparse'); gg.mis2(G, 'quality', backend='suitesparse')", tmp_path,
         GBGRAPH_WARMUP="0")
    code = """
        from numba.core import event
        import gbgraph as gg
        G = gg.as_graph(gg.generators.laplace3d(6))
        compiled, depth = [], [0]

        class Recorder(event.Listener):  # the functions compiled at the top, not their callees
            def on_start(self, e):
                if depth[0] == 0:
                    compiled.append(e.data["dispatcher"].py_func.__qualname__)
                depth[0] += 1

            def on_end(self, e):
                depth[0] -= 1

        event.register("numba:compile", Recorder())
        gg.mis2(G, backend="suitesparse")
        print(" ".join(compiled))
    """
    compiled = _run(code, tmp_path, GBGRAPH_WARMUP="0")
    assert compiled and all(name.startswith(("packed_statuses", "pull_second")) for name in compiled), compiled
