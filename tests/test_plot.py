"""gg.plot: each picture renders to a PNG that is not blank, and draws what it claims."""

import io
import os
import pathlib
import runpy
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import gbgraph as gg
from gbgraph import cli

from conftest import SHARED_DATA, gpu_available

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def assert_not_blank(png):
    """A picture with several colours and a fair share of non-white pixels."""
    pixels = matplotlib.image.imread(png)[..., :3]
    colours = np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    inked = np.mean(np.any(pixels < 0.95, axis=-1))
    assert len(colours) > 5, f"{len(colours)} colours"
    assert inked > 0.01, f"{inked:.4f} of the pixels inked"


def png(ax):
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=60)
    buffer.seek(0)
    return buffer


def grid(nx, ny):
    return gg.generators.laplace3d(nx, ny, 1), gg.generators.grid_coordinates(nx, ny, 1)


def upper_edges(A):
    C = sp.coo_array(sp.triu(sp.csr_array(A) != 0, k=1))
    return C.row, C.col


def test_aggregates_neighbouring_aggregates_differ_in_colour():
    A, xy = grid(20, 15)
    labels = gg.aggregate(A).labels
    ax = gg.plot.aggregates(A, labels, xy)
    assert_not_blank(png(ax))
    vertices = ax.collections[-1]
    np.testing.assert_array_equal(vertices.get_offsets(), xy[:, :2])
    colour = vertices.get_facecolors()
    rows, cols = upper_edges(A)
    across = labels[rows] != labels[cols]
    assert across.any()
    assert np.all(np.any(colour[rows[across]] != colour[cols[across]], axis=1))
    same = ~across  # one colour per aggregate
    np.testing.assert_array_equal(colour[rows[same]], colour[cols[same]])


def test_aggregates_on_a_computed_layout_and_in_3d():
    A = gg.datasets.load("fe_4elt2")[:400, :400]  # a piece of the mesh, possibly in pieces
    assert_not_blank(png(gg.plot.aggregates(A, gg.aggregate(A).labels)))
    B = gg.generators.laplace3d(5)
    ax = gg.plot.aggregates(B, gg.aggregate(B).labels, gg.generators.grid_coordinates(5))
    assert ax.name == "3d"
    assert_not_blank(png(ax))


def test_partition_draws_the_cut_edges_in_black():
    A, xy = grid(16, 8)
    r = gg.bisect(A != 0)
    ax = gg.plot.partition(A, r.parts, xy)
    assert_not_blank(png(ax))
    rows, cols = upper_edges(A)
    cut = int(np.count_nonzero(r.parts[rows] != r.parts[cols]))
    assert cut == r.cut
    black = [c for c in ax.collections[:-1] if np.all(c.get_colors()[:, :3] == 0)]
    assert len(black) == 1 and len(black[0].get_segments()) == cut
    assert ax.get_title() == f"2 parts of 128 vertices, {cut} cut edges"


def test_partition_of_many_parts_colours_neighbours_apart():
    A, xy = grid(24, 24)
    parts = gg.partition(A != 0, 16, tries=1).parts
    ax = gg.plot.partition(A, parts, xy)
    colour = ax.collections[-1].get_facecolors()
    rows, cols = upper_edges(A)
    cut = parts[rows] != parts[cols]
    assert np.all(np.any(colour[rows[cut]] != colour[cols[cut]], axis=1))


def test_hierarchy_plots_every_level():
    h = gg.coarsen(gg.generators.laplace3d(12), cutoff=20)
    ax = gg.plot.hierarchy(h)
    assert_not_blank(png(ax))
    vertices, edges = ax.get_lines()
    assert vertices.get_ydata().tolist() == [level.n for level in h]
    assert edges.get_ydata().tolist() == [level.nnz // 2 for level in h]
    with pytest.raises(TypeError, match="Hierarchy"):
        gg.plot.hierarchy([1, 2])


@pytest.mark.parametrize("kind", ["scipy", "numpy", "graphblas", "path"])
def test_spy_marks_every_stored_entry(kind):
    A = gg.generators.laplace3d(6, 5, 1)
    M = {"scipy": lambda: A, "numpy": A.toarray, "graphblas": lambda: gg.graph.to_container(A, "graphblas"),
         "path": lambda: gg.datasets.path("fe_4elt2")}[kind]()
    ax = gg.plot.spy(M)
    assert_not_blank(png(ax))
    cells = ax.get_images()[0].get_array()
    if kind == "path":  # the off-diagonal pattern, in at most 512 × 512 cells
        assert cells.shape == (512, 512)
    else:
        assert cells.shape == A.shape and np.count_nonzero(cells) == A.nnz


def test_spy_of_a_rectangular_matrix_and_bins():
    P = gg.aggregation_operator(gg.aggregate(gg.generators.laplace3d(8)).labels)
    ax = gg.plot.spy(P, bins=50)
    assert ax.get_images()[0].get_array().shape == (50, min(50, P.shape[1]))
    with pytest.raises(ValueError, match="bins"):
        gg.plot.spy(P, bins=0)


def test_layout_keeps_components_apart_and_is_deterministic():
    A = sp.block_diag([gg.generators.laplace3d(6, 6, 1), gg.generators.laplace3d(20, 3, 1),
                       sp.csr_array((3, 3)), np.ones((2, 2))]).tocsr()
    xy = gg.plot.layout(A)
    np.testing.assert_array_equal(xy, gg.plot.layout(A))
    _, component = csgraph.connected_components(A != 0, directed=False)
    boxes = [(xy[component == c].min(axis=0), xy[component == c].max(axis=0)) for c in np.unique(component)]
    for i, (low, high) in enumerate(boxes):
        for low2, high2 in boxes[i + 1:]:
            assert np.any(high < low2) or np.any(high2 < low), "two components overlap"


def edge_and_pair_distances(A, xy):
    """Mean length of the edges, and mean distance of a fixed set of vertex pairs (each vertex
    with the one n/2 after it in a fixed random order)."""
    rows, cols = upper_edges(A)
    order = np.random.default_rng(1).permutation(len(xy))
    half = len(xy) // 2
    pairs = np.linalg.norm(xy[order[:half]] - xy[order[half:2 * half]], axis=1).mean()
    return np.linalg.norm(xy[rows] - xy[cols], axis=1).mean(), pairs


@pytest.mark.parametrize("name", ["fe_4elt2", "commanche_dual"])
def test_layout_puts_neighbours_closer_than_random_pairs(name):
    A = gg.datasets.load("fe_4elt2") if name == "fe_4elt2" else _shared_graph(name)
    xy = gg.plot.layout(A)
    assert xy.shape == (A.shape[0], 2) and np.all(np.isfinite(xy))
    edge, pairs = edge_and_pair_distances(A, xy)
    assert edge < pairs / 10, (edge, pairs)


def _shared_graph(name):
    path = SHARED_DATA / f"{name}.mtx.gz"
    if not path.exists():
        pytest.skip(f"no {path} (set GBGRAPH_DATA to the shared/data folder)")
    return sp.csr_array(gg.io.read_matrix_market(str(path))[0])


def test_layout_has_no_nan_on_awkward_graphs():
    star = sp.lil_array((40, 40))
    star[0, 1:] = 1
    star = (star + star.T).tocsr()  # a star of 39 leaves
    clique = np.ones((12, 12)) - np.eye(12)
    A = sp.block_diag([star, clique, sp.csr_array((3000, 3000)), gg.generators.laplace3d(30, 30, 1) != 0]).tocsr()
    xy = gg.plot.layout(A)  # 3,000 isolated vertices: a hierarchy that stalls with 3,000 components
    assert np.all(np.isfinite(xy))
    assert len(np.unique(xy.round(9), axis=0)) == A.shape[0]  # no two vertices on one point


@pytest.mark.slow
def test_layout_of_100k_vertices_stays_modest():
    """A mesh of 102,400 vertices: the layout's own memory, the peak RSS it adds, stays below
    1 GB (a dense factorisation alone would take 80 GB) and it ends in minutes, not hours.

    A layout of a 1,600-vertex mesh runs first, so that the baseline already holds the
    compiled kernels (numba's compiler, not the layout, is what an empty cache would add) and
    the backend is numba from the start (``GBGRAPH_WARMUP=0``), whatever the warm-up of
    earlier tests has left.
    """
    code = ("import time, resource, gbgraph as gg\n"
            "gg.plot.layout(gg.generators.laplace3d(40, 40, 1))\n"
            "A = gg.generators.laplace3d(320, 320, 1)\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "t = time.perf_counter(); xy = gg.plot.layout(A); t = time.perf_counter() - t\n"
            "import numpy as np; assert np.all(np.isfinite(xy))\n"
            "print(t, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "GBGRAPH_WARMUP": "0"})
    assert done.returncode == 0, done.stderr
    seconds, before, after = map(float, done.stdout.split())  # kilobytes on Linux
    assert after - before < 1_000_000, f"peak RSS {before / 1e3:.0f} MB before the layout, {after / 1e3:.0f} MB after"
    assert seconds < 600, f"{seconds:.0f} s"


def test_layout_reports_its_levels():
    events = []
    with gg._progress.listening(lambda event, fields: events.append((event, fields))):
        gg.plot.layout(gg.generators.laplace3d(40, 40, 1))
    done = [f["done"] for e, f in events if e == "plot"]
    totals = {f["total"] for e, f in events if e == "plot"}
    assert len(totals) == 1 and done == list(range(1, totals.pop() + 1)) and len(done) > 2
    assert not [e for e, _ in events if e in ("hierarchy", "level")]  # the CLI's coarsen bar counts no layout


def group_spread(xy, groups):
    """Mean distance of a vertex from its group's centre."""
    k = groups.max() + 1
    count = np.bincount(groups, minlength=k)
    centre = np.column_stack([np.bincount(groups, xy[:, d], k) / np.maximum(count, 1) for d in range(2)])
    return np.linalg.norm(xy - centre[groups], axis=1).mean()


def test_groups_are_drawn_together_with_borders():
    """Without coordinates, each aggregate is drawn compact (its vertices within about an edge
    of their centre) and each part is a patch: parts spread less than the whole graph."""
    A = gg.datasets.load("fe_4elt2")
    labels = gg.aggregate(A).labels
    ax = gg.plot.aggregates(A, labels)
    xy = ax.collections[-1].get_offsets().data
    edge, _ = edge_and_pair_distances(A, xy)
    assert group_spread(xy, labels) < 1.5 * edge
    image = ax.get_images()[0].get_array()  # the regions, with dark borders
    assert np.any(np.all(image[..., :3] < 0.25, axis=-1)) and np.any(image[..., 3] == 0)
    parts = gg.partition(A != 0, 8, tries=1).parts
    xy = gg.plot.partition(A, parts).collections[-1].get_offsets().data
    assert group_spread(xy, parts) < 0.5 * group_spread(xy, np.zeros(len(xy), np.int64))


@pytest.mark.parametrize("with_coords", [False, True])
def test_above_max_drawn_a_coarse_level_is_drawn_and_said(monkeypatch, with_coords):
    monkeypatch.setattr(gg.plot, "MAX_DRAWN", 150)
    A, xy = grid(30, 30)
    labels = gg.aggregate(A).labels
    k = int(labels.max()) + 1
    with pytest.warns(gg.plot.CoarseDrawingWarning, match="900 vertices are more than a picture shows"):
        ax = gg.plot.aggregates(A, labels, xy if with_coords else None)
    drawn = len(ax.collections[-1].get_offsets())
    assert drawn <= 150 and drawn < k  # coarser than the aggregates: several per drawn vertex
    assert ax.get_title().startswith(f"{k:,} aggregates of 900 vertices\ndrawn: level ")
    if with_coords:  # each drawn vertex at the mean of its grid points: inside the grid
        offsets = ax.collections[-1].get_offsets().data
        assert offsets.min() >= 0 and offsets.max() <= 29
    monkeypatch.setattr(gg.plot, "MAX_DRAWN", k)  # a level of k vertices that keeps groups apart: the quotient
    with pytest.warns(gg.plot.CoarseDrawingWarning, match=f"one vertex per group: the graph of the {k:,} aggregates"):
        ax = gg.plot.aggregates(A, labels)
    assert len(ax.collections[-1].get_offsets()) == k
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph that fits draws every vertex, silently
        monkeypatch.setattr(gg.plot, "MAX_DRAWN", 900)
        assert len(gg.plot.aggregates(A, labels).collections[-1].get_offsets()) == 900


def test_cli_plot_says_it_drew_a_coarse_level(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(gg.plot, "MAX_DRAWN", 100)
    out = tmp_path / "parts.png"
    assert cli.main(["partition", "fe_4elt2", "-k", "4", "--plot", str(out)]) == 0
    err = capsys.readouterr().err
    assert "gbgraph partition: warning: 11,143 vertices are more than a picture shows (100)" in err
    assert_not_blank(out)


def test_cli_progress_bar_counts_the_layout_levels(capsys):
    bars = cli._Bars("aggregate")
    bars("plot", {"done": 0, "total": None, "what": "coarsening"})
    for done in range(1, 4):
        bars("plot", {"done": done, "total": 3, "what": f"level {3 - done}"})
    bar = bars._bars["plot"]
    assert (bar.n, bar.total) == (3, 3)
    bars.close()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_layout_of_tiny_graphs(n):
    path = np.eye(n, k=1)
    xy = gg.plot.layout(path + path.T)
    assert xy.shape == (n, 2) and np.all(np.isfinite(xy))
    assert len(np.unique(xy, axis=0)) == n  # no two vertices on one point


def test_grid_coordinates_put_neighbours_one_apart():
    A = gg.generators.laplace3d(4, 3, 5)
    xyz = gg.generators.grid_coordinates(4, 3, 5)
    rows, cols = upper_edges(A)
    np.testing.assert_array_equal(np.abs(xyz[rows] - xyz[cols]).sum(axis=1), 1.0)
    E = gg.generators.elasticity3d(3, 2, 2)
    points = gg.generators.grid_coordinates(3, 2, 2, dofs=3)
    rows, cols = upper_edges(E)
    assert points.shape == (E.shape[0], 3) and np.abs(points[rows] - points[cols]).max() == 1.0
    with pytest.raises(ValueError, match="dofs"):
        gg.generators.grid_coordinates(3, dofs=0)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda A, xy: gg.plot.aggregates(A, np.zeros(5, np.int64), xy), ValueError, "one entry per vertex, 12"),
    (lambda A, xy: gg.plot.aggregates(A, -np.ones(12, np.int64), xy), ValueError, "labels must be >= 0, got -1"),
    (lambda A, xy: gg.plot.partition(A, np.zeros(12), xy), TypeError, "parts must be integers, got float64"),
    (lambda A, xy: gg.plot.partition(A, np.zeros(12, int), xy[:, :1]), ValueError, r"coords must have shape \(12, 2\)"),
    (lambda A, xy: gg.plot.aggregates(A, np.zeros(12, int), xy + np.arange(12)[:, None], ax=plt.figure().gca()),
     ValueError, "3-D coordinates need 3-D axes"),
])
def test_errors_name_the_problem(call, error, message):
    A, xy = grid(4, 3)
    with pytest.raises(error, match=message):
        call(A, xy)


def test_without_matplotlib_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install gbgraph\[plot\]"):
        gg.plot.spy(np.eye(3))


def test_import_does_not_load_matplotlib():
    code = "import sys, gbgraph; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "False", done.stderr


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs a GPU")
def test_gpu_inputs_are_drawn_from_the_host():
    import cupy
    import cupyx.scipy.sparse as csp

    A, xy = grid(10, 10)
    G = csp.csr_matrix(A)
    labels = gg.aggregate(G).labels
    assert isinstance(labels, cupy.ndarray)
    host = gg.plot.aggregates(A, labels.get(), xy).collections[-1].get_facecolors()
    np.testing.assert_array_equal(gg.plot.aggregates(G, labels, cupy.asarray(xy)).collections[-1].get_facecolors(), host)
    assert_not_blank(png(gg.plot.spy(G)))


def test_docs_pictures_script_writes_every_picture(tmp_path, monkeypatch):
    """CI runs docs/make_pictures.py here, in this process (its kernels already compiled)."""
    monkeypatch.setattr(sys, "argv", ["make_pictures.py", "--out", str(tmp_path)])
    runpy.run_path(str(ROOT / "docs" / "make_pictures.py"), run_name="__main__")
    written = sorted(p.name for p in tmp_path.glob("*.png"))
    assert written == sorted(p.name for p in (ROOT / "docs" / "images").glob("*.png"))
    for picture in tmp_path.glob("*.png"):
        assert_not_blank(picture)
