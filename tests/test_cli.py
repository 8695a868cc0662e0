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
    assert "mis2" in out and "laplace3d:50" in out
    with pytest.raises(SystemExit):
        main(["mis2", "--help"])
    assert "--output" in capsys.readouterr().out
