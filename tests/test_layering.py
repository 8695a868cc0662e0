"""The layers of docs/architecture.md: no backend imports an algorithm module, and the
algorithms import neither graphblas nor cupy."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "gbgraph"


def _imports(path, root=PACKAGE.parent):
    """Absolute names of the modules ``path`` imports (relative imports resolved against
    its place under ``root``)."""
    package = path.relative_to(root).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join(base + ((node.module,) if node.module else ()))
            yield module
            if node.module is None or node.level:
                yield from (f"{module}.{alias.name}" for alias in node.names)


def _modules(folder):
    return sorted((PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _modules("backends"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_backend_imports_an_algorithm_module(path):
    wrong = [name for name in _imports(path) if name.startswith("gbgraph.algorithms")]
    assert not wrong, f"{path.relative_to(PACKAGE)} imports {wrong}"


@pytest.mark.parametrize("path", _modules("algorithms"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_algorithms_import_neither_graphblas_nor_cupy(path):
    wrong = [name for name in _imports(path) if name.split(".")[0] in ("graphblas", "cupy", "cupyx")]
    assert not wrong, f"{path.relative_to(PACKAGE)} imports {wrong}"


def test_the_walker_resolves_relative_imports(tmp_path):
    """A backend module importing an algorithm relatively is seen as importing it."""
    path = tmp_path / "gbgraph" / "backends" / "native" / "x.py"
    path.parent.mkdir(parents=True)
    path.write_text("from ...algorithms.mis import MISResult\nfrom .. import base\nimport cupy\n")
    found = set(_imports(path, tmp_path))
    assert {"gbgraph.algorithms.mis", "gbgraph.algorithms.mis.MISResult", "gbgraph.backends.base", "cupy"} <= found
