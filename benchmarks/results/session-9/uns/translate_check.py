"""The row operators of aggregation.py and heavy.py translated to CUDA C++, compiled with g++ and
run on the host (tests/test_operators_gpu.py's helpers), against numba's compilation of the same
operator, row by row. usage: PYTHONPATH=<tree> translate_check.py (from the worktree root)"""
import sys
import numpy as np
sys.path.insert(0, "tests")
import pathlib, tempfile
from test_operators_gpu import _csr, host_rows, _rows_equal
from gbgraph.backends.numba import compiled
from gbgraph.algorithms import aggregation, heavy


def numba_rows(op, indptr, cols, vals, vectors, dtype):
    v = np.ones(cols.size, bool) if vals is None else vals
    f = compiled._row_module(op, v.dtype, tuple(x.dtype for x in vectors))._gb_op
    out = [f(r, indptr[r], indptr[r + 1], cols.astype(np.int64), v, *vectors) for r in range(indptr.size - 1)]
    return np.array([a for a, _ in out], dtype), np.array([b for _, b in out], bool)


rng = np.random.default_rng(29)
n = 80
indptr, cols, vals = _csr(n, rng, pattern=False, density=0.4)
label = rng.integers(-1, 12, n).astype(np.int64)
is_root = rng.random(n) < 0.3
size = rng.integers(1, 9, n).astype(np.int64)
keys = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
keys[rng.random(n) < 0.3] = 0
keys[:12] = 7
state = rng.integers(0, 3, n).astype(np.int64)
cases = [(aggregation.BETTER_GROUP, None, (label, is_root, size)), (aggregation.GATHERS_THREE, None, (label,)),
         (heavy.HEAVIEST, vals, (keys,)), (heavy.HEAVIEST, None, (keys,)), (heavy.VISIT, None, (state,))]
with tempfile.TemporaryDirectory() as tmp:
    for k, (op, v, vectors) in enumerate(cases):
        path = pathlib.Path(tmp) / str(k)
        path.mkdir()
        got = host_rows(path, op, indptr, cols, v, vectors)
        want = numba_rows(op, indptr, cols, v, vectors, got[0].dtype)
        _rows_equal(got, want)
        print(op.name, "equal on", want[1].sum(), "rows of", n)
