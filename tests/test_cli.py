import json
import sys

import numpy as np
import pytest

import gbgraph as gg
from gbgraph.cli import load_graph, main


def test_mis2_table(capsys):
    assert main(["mis2", "laplace3d:20,10,5"]) == 0
    out = capsys.readouterr().out
    rows = dict(line.split(None, 1) for line in out.splitlines() if line.strip())
    expected = gg.mis2(gg.generators.laplace3d(20, 10, 5))
    assert rows["n"] == "1,000"
    assert rows["|MIS-2|"] == f"{len(expected.vertices):,}"
    assert rows["iterations"] == str(expected.iterations)
    assert rows["backend"] == "numba"
    assert "ms" in rows["mis2"]


@pytest.mark.parametrize(("command", "priority", "run"), [
    ("mis1", None, lambda A: gg.mis1(A)), ("mis1", "random", lambda A: gg.mis1(A, "random")),
    ("mis1", "permutation", lambda A: gg.mis1(A, "permutation")),
    ("mis2", "fixed", lambda A: gg.mis2(A, priority="fixed")),
    ("mis2", "quality", lambda A: gg.mis2(A, priority="quality")),
])
def test_priorities(command, priority, run, capsys):
    argv = [command, "laplace3d:12,10,8"] + ([] if priority is None else ["--priority", priority])
    assert main(argv) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.strip())
    expected = run(gg.generators.laplace3d(12, 10, 8))
    assert rows["priority"] == (priority or "degree")
    assert rows[f"|MIS-{command[-1]}|"] == f"{len(expected.vertices):,}"
    assert rows["iterations"] == str(expected.iterations)
    assert "ms" in rows[command]


def test_mis1_output_file(tmp_path, capsys):
    out = tmp_path / "ids.npy"
    assert main(["mis1", "fe_4elt2", "--priority", "random", "--output", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), gg.mis1(gg.datasets.load("fe_4elt2"), "random").vertices)


def test_unknown_priority(capsys):
    with pytest.raises(SystemExit) as e:
        main(["mis1", "fe_4elt2", "--priority", "refresh"])
    assert e.value.code == 2
    assert "invalid choice: 'refresh'" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".txt", ".npy"])
def test_mis2_output_file(tmp_path, suffix, capsys):
    out = tmp_path / f"ids{suffix}"
    assert main(["mis2", "fe_4elt2", "--output", str(out)]) == 0
    ids = np.load(out) if suffix == ".npy" else np.loadtxt(out, dtype=np.int64)
    np.testing.assert_array_equal(ids, gg.mis2(gg.datasets.load("fe_4elt2")).vertices)


def test_mis2_reads_files():
    G = load_graph(gg.datasets.path("fe_4elt2"))
    assert (G.n, G.nnz) == (11143, 65636)


@pytest.mark.parametrize(("spec", "message"), [
    ("nope.mtx", "does not exist"), ("laplace3d:x", "bad grid size"), ("laplace3d:2,3", "one or three"),
    ("cube:3", "unknown generator"), ("laplace3d:0", "nx must be a positive integer, got 0"),
])
def test_mis2_errors(spec, message, capsys):
    assert main(["mis2", spec]) == 2
    assert message in capsys.readouterr().err


def test_help_documents_every_command(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for command in ("mis1", "mis2", "color", "aggregate", "coarsen"):
        assert command in out
    assert "laplace3d:50" in out
    for command in ("mis1", "mis2", "color", "aggregate", "coarsen"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "--output" in out and "--backend" in out


@pytest.mark.parametrize(("options", "kwargs"), [
    ([], {}),
    (["--method", "hybrid"], {"method": "hybrid"}),
    (["--method", "jones_plassmann", "--distance", "2", "--priority", "largest_degree"],
     {"method": "jones_plassmann", "distance": 2, "priority": "largest_degree"}),
])
def test_color_table(capsys, options, kwargs):
    assert main(["color", "laplace3d:10,8,6"] + options) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.strip())
    expected = gg.color(gg.generators.laplace3d(10, 8, 6), **kwargs)
    assert rows["n"] == "480"
    assert rows["colors"] == f"{expected.n_colors:,}"
    assert rows["iterations"] == str(expected.iterations)
    assert rows["method"].startswith(kwargs.get("method", "greedy"))
    assert "ms" in rows["color"]


@pytest.mark.parametrize("suffix", [".txt", ".npy"])
def test_color_output_file(tmp_path, suffix, capsys):
    out = tmp_path / f"colors{suffix}"
    assert main(["color", "fe_4elt2", "--distance", "2", "--output", str(out)]) == 0
    colors = np.load(out) if suffix == ".npy" else np.loadtxt(out, dtype=np.int64)
    np.testing.assert_array_equal(colors, gg.color(gg.datasets.load("fe_4elt2"), distance=2).colors)


@pytest.mark.parametrize(("options", "message"), [
    (["--method", "hybrid", "--distance", "2"], "distance=2 is available for 'greedy' and 'jones_plassmann'"),
    (["--method", "mis", "--priority", "largest_degree"], "'mis' fixes its own order"),
    (["nope.mtx"], "does not exist"),
])
def test_color_errors(options, message, capsys):
    graph = [] if options[0].endswith(".mtx") else ["laplace3d:4"]
    assert main(["color"] + graph + options) == 2
    assert message in capsys.readouterr().err


def test_aggregate_table_and_labels(tmp_path, capsys):
    out = tmp_path / "labels.npy"
    assert main(["aggregate", "laplace3d:12", "--output", str(out)]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.strip())
    expected = gg.aggregate(gg.generators.laplace3d(12))
    assert rows["aggregates"].startswith(f"{expected.n_aggregates:,} ")
    np.testing.assert_array_equal(np.load(out), expected.labels)


def test_coarsen_prints_the_hierarchy(capsys):
    assert main(["coarsen", "laplace3d:12", "--construction", "sort", "--cutoff", "20"]) == 0
    out = capsys.readouterr().out
    expected = gg.coarsen(gg.generators.laplace3d(12), cutoff=20, construction="sort")
    table = str(expected).splitlines()  # the times differ from run to run: compare the rest
    assert table[0] in out and table[1] in out
    for line in table[2:]:
        assert line[:40] in out
    assert "levels" in out and str(len(expected)) in out


def test_coarsen_by_heavy_edges(capsys):
    assert main(["coarsen", "laplace3d:12", "--method", "hec", "--cutoff", "20", "--weights", "pattern"]) == 0
    out = capsys.readouterr().out
    expected = gg.coarsen(gg.generators.laplace3d(12) != 0, "hec", cutoff=20)
    assert "hec mapping" in out and str(expected).splitlines()[0] in out


def test_corrupted_gzip_file_is_an_error_naming_it(tmp_path, capsys):
    import gzip

    data = bytearray(gzip.compress(b"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n"))
    data[10] = 0xFF  # the first deflate block gets the reserved type 3: zlib.error
    path = tmp_path / "broken.mtx.gz"
    path.write_bytes(bytes(data))
    assert main(["mis2", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gbgraph mis2: error: cannot read Matrix Market file '{path}'") and "invalid block type" in err


def _rows(out):
    return dict(line.split(None, 1) for line in out.splitlines() if line.strip() and not line.startswith(" "))


def test_backend_cupy_without_cupy_is_a_one_line_error(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "cupy", None)  # "import cupy" raises ImportError, GPU or not
    monkeypatch.delitem(sys.modules, "gbgraph.backends.cupy", raising=False)
    monkeypatch.setattr(gg.backends, "_INSTANCES", {})
    assert main(["mis2", "laplace3d:4", "--backend", "cupy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gbgraph mis2: error: the 'cupy' backend needs CuPy") and "gbgraph[cuda13]" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(("output", "message"), [
    ("missing/ids.txt", "No such file or directory"), (".", "Is a directory"),
])
def test_unwritable_output_is_found_before_computing(tmp_path, monkeypatch, capsys, output, message):
    def never(*args):
        raise AssertionError("the graph was loaded before --output was checked")

    monkeypatch.setattr("gbgraph.cli.load_graph", never)
    path = tmp_path / output
    assert main(["mis2", "laplace3d:4", "--output", str(path)]) == 2
    assert capsys.readouterr().err == f"gbgraph mis2: error: cannot write --output {str(path)!r}: {message}\n"


def test_output_is_not_created_by_a_failed_command(tmp_path, capsys):
    out = tmp_path / "ids.txt"
    assert main(["mis2", str(tmp_path / "nope.mtx"), "--output", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize(("graph", "reason"), [
    ("laplace3d:3", "27 vertices, at most --cutoff 50"),
    ("laplace3d:3,3,1", "9 vertices, at most --cutoff 50"),
])
def test_coarsen_output_of_one_level_writes_nothing(tmp_path, capsys, graph, reason):
    out = tmp_path / "labels.txt"
    assert main(["coarsen", graph, "--output", str(out)]) == 2
    captured = capsys.readouterr()
    assert not out.exists() and "written to" not in captured.out and _rows(captured.out)["levels"].split()[0] == "1"
    assert captured.err == (f"gbgraph coarsen: error: nothing written to {str(out)!r}: the hierarchy has one level "
                            f"({reason}), so no vertex has an aggregate\n")


def test_warnings_are_one_line_without_source(tmp_path):
    import subprocess
    import sys

    import scipy.io
    import scipy.sparse as sp

    path = tmp_path / "isolated.mtx"  # 30 vertices and one edge: the first level keeps 29
    scipy.io.mmwrite(path, sp.coo_array((np.ones(2), ([0, 1], [1, 0])), shape=(30, 30)))
    run = subprocess.run([sys.executable, "-m", "gbgraph.cli", "coarsen", str(path), "--cutoff", "5"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0
    assert run.stderr == ("gbgraph coarsen: warning: level 1 would keep 29 of 30 vertices (less than 5% fewer); "
                          "coarsening stops at 1 levels\n")


def test_asymmetric_graph_points_to_the_symmetrize_option(tmp_path, capsys):
    import scipy.io
    import scipy.sparse as sp

    path = tmp_path / "directed.mtx"  # the path 0 -> 1 -> 2 -> 3, one way
    scipy.io.mmwrite(path, sp.coo_array((np.ones(3), ([0, 1, 2], [1, 2, 3])), shape=(4, 4)))
    assert main(["mis2", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (f"gbgraph mis2: error: {path} does not have a symmetric pattern: 3 of its 3 off-diagonal entries "
                   "(i, j) have no (j, i); add --symmetrize for the pattern of A ∪ Aᵀ\n")
    assert main(["mis2", str(path), "--symmetrize"]) == 0
    # the undirected path 0 - 1 - 2 - 3: one vertex of {0, 1, 2} and one of {1, 2, 3} at distance 3
    expected = gg.mis2(np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1))
    assert _rows(capsys.readouterr().out)["|MIS-2|"] == f"{len(expected.vertices):,}"


@pytest.mark.parametrize(("spec", "message"), [
    ("laplace3d", "'laplace3d' needs a grid size: laplace3d:50 or laplace3d:100,50,50"),
    ("elasticity3d", "'elasticity3d' needs a grid size: elasticity3d:50 or elasticity3d:100,50,50"),
    ("fe_4elt", "unknown graph 'fe_4elt': expected a Matrix Market file (.mtx, .mtx.gz), an embedded graph "
                "(fe_4elt2) or a generator with its grid size (laplace3d:50, elasticity3d:50); did you mean 'fe_4elt2'?"),
    ("graph.txt", "unknown graph 'graph.txt': expected a Matrix Market file (.mtx, .mtx.gz), an embedded graph "
                  "(fe_4elt2) or a generator with its grid size (laplace3d:50, elasticity3d:50)"),
])
def test_graph_argument_errors_list_what_is_accepted(spec, message, capsys):
    assert main(["mis2", spec]) == 2
    assert capsys.readouterr().err == f"gbgraph mis2: error: {message}\n"


@pytest.mark.parametrize("name", ["G.MTX", "G.MTX.GZ"])
def test_upper_case_suffix(tmp_path, name, capsys):
    import shutil

    source = gg.datasets.path("fe_4elt2")
    if name.endswith(".GZ"):
        shutil.copyfile(source, tmp_path / name)
    else:
        import gzip

        with gzip.open(source, "rb") as src, open(tmp_path / name, "wb") as dst:
            shutil.copyfileobj(src, dst)
    assert main(["mis2", str(tmp_path / name)]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows["|MIS-2|"] == f"{len(gg.mis2(gg.datasets.load('fe_4elt2')).vertices):,}"


def _json(capsys):
    """The one JSON object a --json command printed, and nothing else."""
    return _json_line(capsys.readouterr().out)


@pytest.mark.parametrize(("argv", "check"), [
    (["mis2", "laplace3d:12,10,8"], lambda r, A: (r["size"], r["iterations"]) == (
        len(gg.mis2(A).vertices), gg.mis2(A).iterations)),
    (["mis1", "laplace3d:12,10,8", "--priority", "random"], lambda r, A: r["size"] == len(gg.mis1(A, "random").vertices)),
    (["color", "laplace3d:12,10,8", "--distance", "2"], lambda r, A: r["colors"] == gg.color(A, distance=2).n_colors),
    (["aggregate", "laplace3d:12,10,8"], lambda r, A: r["aggregates"] == gg.aggregate(A).n_aggregates),
    (["coarsen", "laplace3d:12,10,8", "--cutoff", "20"], lambda r, A: [level["n"] for level in r["levels"]] == [
        level.n for level in gg.coarsen(A, cutoff=20)] and r["construction"] == "sort"),
    (["partition", "laplace3d:12,10,8", "-k", "4", "--weights", "pattern", "--tries", "1"], lambda r, A: (
        r["cut"], r["part_weights"]) == (gg.partition(A != 0, 4, tries=1).cut,
                                         gg.partition(A != 0, 4, tries=1).part_weights.tolist())),
    (["partition", "laplace3d:12,10,8", "-k", "4", "--method", "kway", "--tries", "1"], lambda r, A: (
        r["method"], r["cut"], r["levels"]) == ("kway", gg.partition(A, 4, method="kway", tries=1).cut,
                                                list(gg.partition(A, 4, method="kway", tries=1).levels))),
])
def test_json_is_one_object_with_the_results(argv, check, capsys):
    assert main(argv + ["--json"]) == 0
    record = _json(capsys)
    A = gg.generators.laplace3d(12, 10, 8)
    assert record["command"] == argv[0] and record["graph"] == argv[1]
    assert (record["n"], record["edges"]) == (960, 11 * 10 * 8 + 12 * 9 * 8 + 12 * 10 * 7)
    assert check(record, A)
    assert all(isinstance(t, float) and t >= 0 for t in record["seconds"].values())


def test_json_names_the_files_written(tmp_path, capsys):
    out, picture = tmp_path / "labels.npy", tmp_path / "aggregates.png"
    assert main(["aggregate", "laplace3d:6", "--json", "--output", str(out), "--plot", str(picture)]) == 0
    record = _json(capsys)
    assert (record["output"], record["plot"]) == (str(out), str(picture))


def test_json_errors_stay_one_line_on_stderr(capsys):
    assert main(["mis2", "nope.mtx", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1


def _grid_graph_file(tmp_path, entries, n, name="g.mtx"):
    import scipy.io
    import scipy.sparse as sp

    rows, cols = zip(*entries)
    path = tmp_path / name
    scipy.io.mmwrite(path, sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=(n, n)))
    return str(path)


def test_info_of_the_default_graph(capsys):
    assert main(["info"]) == 0
    rows = _rows(capsys.readouterr().out)
    A = gg.datasets.load("fe_4elt2")
    assert rows["graph"].startswith("fe_4elt2 (the default")
    assert rows["n"] == f"{A.shape[0]:,}" and rows["edges"].startswith(f"{A.nnz // 2:,} ")
    assert rows["symmetric"] == "yes" and rows["weighted"] == "no (a pattern)"
    degree = np.diff(A.indptr)
    assert rows["degree"].startswith(f"min {degree.min()}, max {degree.max()}, mean {degree.mean():.2f}")


def test_info_counts_components_isolated_vertices_and_one_way_entries(tmp_path, capsys):
    # 0 - 1 - 2 (the edge 1 -> 2 stored one way), 3 = 4, a loop on 5, 6 alone
    path = _grid_graph_file(tmp_path, [(0, 1), (1, 0), (1, 2), (3, 4), (4, 3), (5, 5)], 7)
    assert main(["info", path, "--json"]) == 0
    record = _json(capsys)
    assert (record["n"], record["edges"], record["components"], record["largest_component"]) == (7, 3, 4, 3)
    assert (record["isolated"], record["diagonal_entries"], record["stored_entries"]) == (2, 1, 6)
    assert record["symmetric"] is False and record["one_way_entries"] == 1 and record["symmetric_values"] is None
    assert record["degree"] == {"min": 0, "max": 2, "mean": 6 / 7, "median": 1.0}
    assert main(["info", path]) == 0
    assert "--symmetrize" in _rows(capsys.readouterr().out)["symmetric"]


def test_info_of_a_generator_reports_its_values(capsys):
    assert main(["info", "laplace3d:5,4,3", "--json"]) == 0
    record = _json(capsys)
    assert record["weighted"] is True and record["weights"] == {"min": -1.0, "max": 6.0}
    assert record["symmetric_values"] is True and record["diagonal_entries"] == 60
    assert record["degree"]["min"] == 3 and record["degree"]["max"] == 6


@pytest.mark.parametrize("spec", ["nope.mtx", "laplace3d:x", "cube:3"])
def test_info_errors_are_one_line(spec, capsys):
    assert main(["info", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gbgraph info: error: ") and len(err.splitlines()) == 1


@pytest.mark.parametrize("argv", [
    ["aggregate", "laplace3d:10,10,1"], ["aggregate", "fe_4elt2"], ["coarsen", "laplace3d:10"],
    ["partition", "laplace3d:12,8,1", "--weights", "pattern"],
])
def test_plot_writes_a_picture(tmp_path, argv, capsys):
    import matplotlib.image

    picture = tmp_path / "picture.png"
    assert main(argv + ["--plot", str(picture)]) == 0
    assert _rows(capsys.readouterr().out)["plotted"].split() == ["to", str(picture)]
    pixels = matplotlib.image.imread(picture)[..., :3]
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 5 and np.mean(np.any(pixels < 0.95, axis=-1)) > 0.01


def test_plot_without_matplotlib_fails_before_computing(monkeypatch, tmp_path, capsys):
    def never(*args):
        raise AssertionError("the graph was loaded before matplotlib was looked for")

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr("gbgraph.cli.load_graph", never)
    assert main(["coarsen", "laplace3d:4", "--plot", str(tmp_path / "h.png")]) == 2
    assert capsys.readouterr().err == "gbgraph coarsen: error: --plot needs matplotlib: pip install gbgraph[plot]\n"


def test_unwritable_plot_is_found_before_computing(tmp_path, capsys):
    path = tmp_path / "missing" / "h.png"
    assert main(["coarsen", "laplace3d:4", "--plot", str(path)]) == 2
    assert capsys.readouterr().err == (f"gbgraph coarsen: error: cannot write --plot {str(path)!r}: "
                                       "No such file or directory\n")


def test_no_progress_bars_off_a_terminal(capsys):
    assert main(["partition", gg.datasets.path("fe_4elt2"), "-k", "4", "--tries", "1"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_progress_bars_on_a_terminal_and_never_with_json(monkeypatch, capsys, json_flag):
    monkeypatch.setattr("gbgraph.cli._BAR_DELAY", 0)  # this test's work is quicker than a second
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["coarsen", gg.datasets.path("fe_4elt2"), "--cutoff", "20"] + json_flag) == 0
    captured = capsys.readouterr()
    if json_flag:
        assert captured.err == "" and _json_line(captured.out)["command"] == "coarsen"
    else:
        assert "reading" in captured.err and "coarsen: level" in captured.err
        assert _rows(captured.out)["n"] == "11,143"  # the table is untouched


@pytest.mark.parametrize(("options", "shown"), [
    (["-k", "3", "--method", "recursive", "--tries", "2"], "hierarchy 0/4 "),  # 2 bisections of 2 tries
    (["-k", "8"], "hierarchy 0/1 "),  # direct k-way: one hierarchy
    # a bisection's default tries depend on its graph's size (LARGE_TRIES): a count, no total
    ([], "partition: hierarchy 0 "),
])
def test_the_partition_bar_counts_hierarchies(monkeypatch, capsys, options, shown):
    monkeypatch.setattr("gbgraph.cli._BAR_DELAY", 0)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["partition", "laplace3d:12"] + options) == 0
    err = capsys.readouterr().err
    assert shown in err and ("/" in shown or "hierarchy 0/" not in err), err


def _json_line(out):
    assert len(out.splitlines()) == 1, out
    return json.loads(out)


# ---- one behaviour for the command line and Python ---------------------------------------


@pytest.mark.parametrize(("command", "function"), [
    ("mis1", gg.mis1), ("mis2", gg.mis2), ("color", gg.color), ("aggregate", gg.aggregate), ("coarsen", gg.coarsen),
    ("partition", gg.partition), ("partition", gg.bisect),
])
def test_every_option_has_the_python_default(command, function):
    import inspect

    from gbgraph.cli import _parser

    args = vars(_parser().parse_args([command, "fe_4elt2"]))
    parameters = inspect.signature(function).parameters
    shared = {name for name in args if name in parameters and parameters[name].default is not inspect.Parameter.empty}
    assert shared >= {"backend"} | ({"weights", "seed"} if command in ("coarsen", "partition") else set())
    assert {name: args[name] for name in shared} == {name: parameters[name].default for name in shared}
    if command == "coarsen":
        assert args["construction"] == "sort" and args["weights"] == "abs"


@pytest.mark.parametrize("spec", ["laplace3d:9,8,7", "fe_4elt2"])
def test_every_command_counts_edges_as_info_does(spec, capsys):
    import scipy.sparse as sp

    A = sp.coo_array(gg.datasets.load(spec) if spec == "fe_4elt2" else gg.generators.laplace3d(9, 8, 7))
    off = A.row != A.col
    edges = len({(min(i, j), max(i, j)) for i, j in zip(A.row[off].tolist(), A.col[off].tolist())})  # by hand
    assert main(["info", spec, "--json"]) == 0
    assert _json(capsys)["edges"] == edges
    for command in (["mis2"], ["color"], ["aggregate"], ["coarsen", "--cutoff", "200"], ["partition", "--tries", "1"]):
        assert main([command[0], spec, *command[1:], "--json"]) == 0
        assert _json(capsys)["edges"] == edges, command
        assert main([command[0], spec, *command[1:]]) == 0
        assert _rows(capsys.readouterr().out)["edges"].startswith(f"{edges:,} "), command


def test_the_readmes_generators_run_in_coarsen_and_partition(capsys):
    # a Laplacian's edges are negative entries: by default their absolute values weigh them
    assert main(["coarsen", "laplace3d:10", "--method", "hec", "--json"]) == 0
    record = _json(capsys)
    expected = gg.coarsen(abs(gg.generators.laplace3d(10)), "hec")
    assert [level["n"] for level in record["levels"]] == [level.n for level in expected]
    assert record["weights"] == "abs"
    assert main(["partition", "laplace3d:8", "-k", "8", "--tries", "1", "--json"]) == 0
    record = _json(capsys)
    expected = gg.partition(gg.generators.laplace3d(8) != 0, 8, tries=1)  # |A(i, j)| = 1: the pattern's partition
    assert (record["cut"], record["part_weights"]) == (expected.cut, expected.part_weights.tolist())


@pytest.mark.parametrize("argv", [["coarsen", "laplace3d:6", "--method", "hec"], ["partition", "laplace3d:6"],
                                  ["partition", "elasticity3d:3", "-k", "3"]])
def test_negative_values_name_the_flag_that_fixes_them(argv, capsys):
    import scipy.sparse as sp

    assert main(argv + ["--weights", "values"]) == 2
    err = capsys.readouterr().err
    A = sp.coo_array(gg.generators.laplace3d(6) if argv[1] == "laplace3d:6" else gg.generators.elasticity3d(3))
    negative = int(np.count_nonzero((A.data < 0) & (A.row != A.col)))
    assert f"{argv[1]} has {negative:,} negative weights" in err
    assert "--weights abs" in err and "--weights pattern" in err and "gg." not in err
    assert len(err.splitlines()) == 1


def test_cuts_of_whole_weights_print_as_integers(tmp_path, capsys):
    # fe_4elt2 is a pattern; a Laplacian's |A(i, j)| are 1.0; a Matrix Market integer file holds 2s
    import scipy.io
    import scipy.sparse as sp

    A = sp.csr_array(gg.datasets.load("fe_4elt2"), dtype=np.int64) * 2
    path = tmp_path / "twos.mtx"
    scipy.io.mmwrite(str(path), sp.coo_matrix(A), field="integer")
    for graph in ("fe_4elt2", "laplace3d:8", str(path)):
        assert main(["partition", graph, "--tries", "1"]) == 0
        cut = _rows(capsys.readouterr().out)["cut"].split()[0]
        assert cut.replace(",", "").isdigit(), (graph, cut)
        assert main(["partition", graph, "--tries", "1", "--json"]) == 0
        assert isinstance(_json(capsys)["cut"], int)


def test_partition_method_flag(capsys):
    argv = ["partition", "laplace3d:10,9,8", "-k", "8", "--tries", "1"]
    assert main(argv + ["--method", "recursive"]) == 0
    recursive = _rows(capsys.readouterr().out)
    assert main(argv) == 0  # k > 2 with FM: k-way by default
    kway = _rows(capsys.readouterr().out)
    A = gg.generators.laplace3d(10, 9, 8)
    assert kway["method"].startswith("kway,") and recursive["method"].startswith("recursive,")
    assert kway["cut"].split()[0] == f"{gg.partition(A, 8, method='kway', tries=1).cut:,}"
    assert recursive["cut"].split()[0] == f"{gg.partition(A, 8, method='recursive', tries=1).cut:,}"
    with pytest.raises(SystemExit):
        main(argv + ["--method", "multilevel"])
    assert "invalid choice: 'multilevel'" in capsys.readouterr().err
