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
    assert rows["backend"] == "suitesparse"
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
    ("cube:3", "unknown generator"), ("laplace3d:0", "positive integers"),
])
def test_mis2_errors(spec, message, capsys):
    assert main(["mis2", spec]) == 2
    assert message in capsys.readouterr().err


def test_help_documents_every_command(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "mis1" in out and "mis2" in out and "laplace3d:50" in out
    for command in ("mis1", "mis2"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "--output" in out and "--priority" in out
