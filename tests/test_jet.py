"""Jet refinement's rounds: a level's rounds through ``Backend.iterate``, the cupy backend's
fused answers against the verbs, and the same parts wherever they run (a GPU hierarchy's
small levels coarsened on the host or not)."""

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.algorithms import coarsen, refine_jet

from conftest import gpu_available, shared_graphs


def _levels_seen(monkeypatch):
    """Records the backend that refines each level."""
    seen = []
    refine = refine_jet._refine_level

    def spy(be, level, *args):
        seen.append((be.name, level.nnz))
        return refine(be, level, *args)

    monkeypatch.setattr(refine_jet, "_refine_level", spy)
    return seen


def _scipy_cut(A, parts):
    C = sp.coo_array(sp.triu(sp.csr_array(A), k=1))
    return float(C.data[parts[C.row] != parts[C.col]].sum())


def test_cpu_levels_stay_on_the_backend(monkeypatch):
    seen = _levels_seen(monkeypatch)
    A = gg.generators.laplace3d(12)
    r = gg.bisect(A, refine="jet", tries=1)
    assert {name for name, _ in seen} == {"numba"} and len(seen) == len(r.levels) - 1


def _rounds_seen(monkeypatch):
    """Records each level's :class:`refine_jet._Rounds`."""
    seen = []

    class Spy(refine_jet._Rounds):
        def __init__(self, *args):
            super().__init__(*args)
            seen.append(self)

    monkeypatch.setattr(refine_jet, "_Rounds", Spy)
    return seen


@pytest.mark.parametrize("patience", [1, 3])
def test_patience_bounds_the_rounds(monkeypatch, patience):
    # a level stops after `patience` rounds without a real improvement (or a round that moves
    # nothing): the parts stay valid whatever the count
    monkeypatch.setattr(refine_jet, "PATIENCE", patience)
    seen = _rounds_seen(monkeypatch)
    A = gg.generators.laplace3d(10) != 0
    r = gg.bisect(A, refine="jet", tries=1)
    assert seen and all(1 <= level.rounds <= refine_jet.MAX_ROUNDS for level in seen)
    assert r.cut == _scipy_cut(A, r.parts) and r.imbalance <= 0.03 + 1e-12


def test_coarse_levels_run_the_schedule(monkeypatch):
    # each coarse level runs its rounds at c = 0.75, then at 0.25 from the first run's best
    # bisection with the later runs' patience, the finest level once at 0.25; a run starts from
    # the bisection the one before ended with and ends with one at least as good (overload,
    # then cut)
    runs = []

    class Level(refine_jet._Level):
        def __init__(self, be, level, vertex_weights, seed, c):
            super().__init__(be, level, vertex_weights, seed, c)
            runs.append({"n": level.n, "c": c})

    class Rounds(refine_jet._Rounds):
        def _judge(self):
            pw = super()._judge()
            runs[-1]["patience"] = self.patience
            runs[-1].setdefault("start", self.key)
            runs[-1]["best"] = self.key
            return pw

    monkeypatch.setattr(refine_jet, "_Level", Level)
    monkeypatch.setattr(refine_jet, "_Rounds", Rounds)
    A = gg.generators.laplace3d(12) != 0
    r = gg.bisect(A, refine="jet", tries=1)
    coarse = len(r.levels) - 2
    assert [(run["n"], run["c"]) for run in runs] == [
        (n, c) for n in r.levels[-2:0:-1] for c in (0.75, 0.25)] + [(r.levels[0], 0.25)]
    patience = [refine_jet.PATIENCE, refine_jet.LATER_PATIENCE] * coarse + [refine_jet.PATIENCE]
    assert [run["patience"] for run in runs] == patience
    for first, second in zip(runs[::2], runs[1::2]):
        assert second["start"] == first["best"] and second["best"] <= second["start"]
    assert coarse >= 1 and r.cut == _scipy_cut(A, r.parts) and r.imbalance <= 0.03 + 1e-12


def test_max_rounds_caps_a_level(monkeypatch):
    monkeypatch.setattr(refine_jet, "MAX_ROUNDS", 2)
    seen = _rounds_seen(monkeypatch)
    gg.bisect(gg.generators.laplace3d(10), refine="jet", tries=1)
    assert seen and all(level.rounds <= 2 for level in seen)


# ---- GPU (``pytest -m gpu``): host levels, recorded rounds, the same parts as numba --------

needs_gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")


def _on_device(A):
    import cupyx.scipy.sparse

    return cupyx.scipy.sparse.csr_matrix(sp.csr_matrix(A, dtype=np.float64))


GRAPHS = [pytest.param(lambda: gg.generators.laplace3d(40), id="laplace3d-40"),
          pytest.param(lambda: gg.datasets.load("fe_4elt2"), id="fe_4elt2")]


def _same_everywhere(monkeypatch, A, k, tries=3):
    """Jet's parts on numba, on the GPU with its hierarchy's small levels coarsened on the
    host, and on the GPU alone: the same, every level refined on the device."""
    cpu = gg.partition(A, k, refine="jet", tries=tries)
    seen = _levels_seen(monkeypatch)
    moved = gg.partition(_on_device(A), k, refine="jet", tries=tries)
    assert {name for name, _ in seen} == {"cupy"}
    seen.clear()
    monkeypatch.setattr(coarsen, "HOST_LEVEL_ENTRIES", -1)
    device = gg.partition(_on_device(A), k, refine="jet", tries=tries)
    assert {name for name, _ in seen} == {"cupy"}
    np.testing.assert_array_equal(moved.parts.get(), cpu.parts)
    np.testing.assert_array_equal(device.parts.get(), cpu.parts)
    assert moved.cut == device.cut == cpu.cut


@pytest.mark.gpu
@pytest.mark.host_levels
@needs_gpu
@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("make", GRAPHS)
def test_gpu_host_levels_change_nothing(monkeypatch, make, k):
    _same_everywhere(monkeypatch, sp.csr_array(make(), dtype=np.float64), k)


@pytest.mark.gpu
@pytest.mark.host_levels
@needs_gpu
@pytest.mark.parametrize("path", shared_graphs())
def test_gpu_host_levels_change_nothing_on_shared_graphs(monkeypatch, path):
    _same_everywhere(monkeypatch, sp.csr_array(gg.io.read_matrix_market(path)[0] != 0, dtype=np.float64), 2, tries=1)


@pytest.mark.gpu
@needs_gpu
def test_gpu_jet_rounds_are_recorded(monkeypatch):
    # the recorded round, where the backend has no kernel for a level's rounds
    from gbgraph.backends.cupy import CupyBackend, replay

    fused = CupyBackend.fused
    monkeypatch.setattr(CupyBackend, "fused", lambda be, name: None if name == "jet_rounds" else fused(be, name))
    before = replay.recordings
    r = gg.bisect(_on_device(gg.generators.laplace3d(20)), refine="jet", tries=1)
    assert replay.recordings > before
    assert r.imbalance <= 0.03 + 1e-12


_DEVICE_TEST = ("jet_level", "jet_judge", "jet_moves", "jet_update", "jet_rebalance", "resumed_rounds", "jet_rounds")


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("make", GRAPHS + [pytest.param(lambda: gg.generators.elasticity3d(8) != 0,
                                                        id="elasticity3d-8")])
def test_gpu_device_judge_matches_host_check(monkeypatch, make, k):
    # the level's set-up, the test between rounds, the moves, ℓ and w σ and the rebalancing
    # rounds on the device (fused "jet_level", "jet_judge", "jet_moves", "jet_update",
    # "jet_rebalance", "resumed_rounds") against the host's check and the verbs, both on the
    # cupy backend: the same parts and, level by level, the same number of rounds judged; one
    # recording per device level
    from gbgraph.backends.cupy import CupyBackend, replay

    A = _on_device(sp.csr_array(make(), dtype=np.float64))
    monkeypatch.setattr(coarsen, "HOST_LEVEL_ENTRIES", -1)  # every level on the device
    seen = _rounds_seen(monkeypatch)
    recorded = replay.recordings
    device = gg.partition(A, k, refine="jet", tries=1)
    assert seen and all(level.judge is not None for level in seen)
    assert replay.recordings - recorded <= len(seen)  # a level that stops before its first Jet round records none
    device_rounds = [level.rounds for level in seen]
    seen.clear()
    fused = CupyBackend.fused
    monkeypatch.setattr(CupyBackend, "fused", lambda be, name: None if name in _DEVICE_TEST else fused(be, name))
    host = gg.partition(A, k, refine="jet", tries=1)
    assert all(level.judge is None for level in seen)
    assert [level.rounds for level in seen] == device_rounds
    np.testing.assert_array_equal(device.parts.get(), host.parts.get())


@pytest.mark.gpu
@needs_gpu
# the one-block rebalancing round up to JET_SMALL vertices, or the radix select on every level
@pytest.mark.parametrize("small", [True, False])
@pytest.mark.parametrize("make", GRAPHS + [pytest.param(lambda: gg.generators.elasticity3d(8) != 0,
                                                        id="elasticity3d-8")])
def test_gpu_level_kernel_matches_recorded_rounds(monkeypatch, make, small):
    # a level's rounds in one cooperative launch (fused "jet_rounds", its rebalancing rounds by
    # the one-block sort or the radix select) against the recorded round with the device judge
    # and the host's rebalancing rounds ("resumed_rounds", "jet_rebalance": the one-block round
    # or the lexsort): the same parts and, level by level, the same number of rounds judged
    from gbgraph.backends.cupy import CupyBackend, kernels

    A = _on_device(sp.csr_array(make(), dtype=np.float64))
    if not small:
        monkeypatch.setattr(kernels, "JET_SMALL", 0)
    seen = _rounds_seen(monkeypatch)
    launched = gg.partition(A, 4, refine="jet", tries=1)
    assert seen and all(level.launch is not None and level.launch.small == (small and level.lv.n <= 4096)
                        for level in seen)
    rounds = [level.rounds for level in seen]
    seen.clear()
    fused = CupyBackend.fused
    monkeypatch.setattr(CupyBackend, "fused", lambda be, name: None if name == "jet_rounds" else fused(be, name))
    recorded = gg.partition(A, 4, refine="jet", tries=1)
    assert seen and all(level.launch is None and level.judge is not None for level in seen)
    assert [level.rounds for level in seen] == rounds
    np.testing.assert_array_equal(launched.parts.get(), recorded.parts.get())


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("n", [1, 2, 153, 1000, 4096])
def test_gpu_small_rebalance_matches_sort(monkeypatch, n):
    # a small level's rebalancing round in one block (kernels.jet_rebalance_small) against the
    # large levels' path (lexsort, cumsum, searchsorted): the same vertices flipped, the same
    # count, on scores and keys with many ties and integer weights, some 0
    import cupy

    from gbgraph.backends.cupy import CupyBackend, kernels
    from gbgraph.backends.cupy.containers import Vector

    rng = np.random.default_rng(n)
    be = CupyBackend()
    sigma = rng.choice([-1.0, 1.0], n)
    loss, w = rng.integers(-3, 4, n).astype(np.float64), rng.integers(0, 4, n).astype(np.float64)
    keys = rng.integers(0, 8, n, dtype=np.uint64) << np.uint64(61)  # float64(~key) ties too
    vec = [Vector(n, None, cupy.asarray(a)) for a in (loss, w, keys)]
    for side in (0, 1):
        for amount in (-1.0, 0.0, 1.0, 0.37 * w.sum(), w.sum() + 1):
            runs = []
            for small in (kernels.JET_SMALL, 0):
                monkeypatch.setattr(kernels, "JET_SMALL", small)
                s = Vector(n, None, cupy.asarray(sigma))
                moved = be._jet_rebalance(s, *vec, side, amount)
                runs.append((s.values.get(), int(moved.get()[0])))
            np.testing.assert_array_equal(runs[0][0], runs[1][0])
            assert runs[0][1] == runs[1][1]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("degree", [4, 40])  # mxv's choice: a thread a row, a warp a row
def test_gpu_fused_level_and_update_match_the_verbs(monkeypatch, degree):
    # a level's θ, Σ d and Σ w (fused "jet_level") and ℓ, w σ (fused "jet_update") against the
    # verbs, both on the cupy backend, on weights that are not whole numbers (so the order of
    # the additions shows) and rows of every length, some empty: the same bits
    import types

    import cupy
    import cupyx.scipy.sparse

    from gbgraph.backends.cupy import CupyBackend

    n, rng = 3000, np.random.default_rng(degree)
    A = sp.random(n, n, density=degree / n, random_state=rng, data_rvs=rng.random)
    keep = sp.diags((np.arange(n) >= 10).astype(np.float64))  # vertices 0-9 isolated
    A = sp.csr_matrix(keep @ (A + A.T) @ keep)
    A.setdiag(0)
    A.eliminate_zeros()
    level = types.SimpleNamespace(graph=gg.as_graph(cupyx.scipy.sparse.csr_matrix(A)), n=n)
    weights = cupy.asarray(rng.integers(0, 4, n))
    sides = cupy.asarray(rng.integers(0, 2, n).astype(np.int8))
    be, fused, runs = CupyBackend(), CupyBackend.fused, []
    for off in ((), ("jet_level", "jet_update")):
        monkeypatch.setattr(CupyBackend, "fused", lambda be, name: None if name in off else fused(be, name))
        lv = refine_jet._Level(be, level, weights, 0, 0.75)
        total = float(lv.total)  # the fused totals are device scalars
        sigma = be.full(n, 1.0 - 2.0 * sides.astype(np.float64), "float64")
        rounds = refine_jet._Rounds(be, lv, sigma, (total / 2 * 1.03,) * 2, (total / 2,) * 2)
        runs.append([be.values(v).get().view(np.uint64) for v in (lv.theta, rounds.loss, rounds.wsigma)]
                    + [np.float64(float(lv.degrees)).view(np.uint64), np.float64(total).view(np.uint64)])
    assert (A.getnnz(axis=1).mean() >= 16) == (degree == 40)
    for fast, verbs in zip(*runs):
        np.testing.assert_array_equal(fast, verbs)
