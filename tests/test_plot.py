"""gg.plot: each picture renders to a PNG that is not blank, and draws what it claims."""

import io
import pathlib
import runpy
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import gbgraph as gg

from conftest import gpu_available

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
