"""User-defined operators on the GPU: the translator to CUDA C++ and the cupy backend's verbs.

The translator's tests run anywhere with a host C++ compiler: each operator is translated,
compiled with g++ (``__device__`` defined away, ``kernels/pyops.cuh`` included) into a small
program that calls the translated function on inputs, and its outputs are compared bit for
bit with numba's compilation of the same Python function. The ``gpu`` tests run the cupy
backend's verbs with operators against the numba backend.
"""

import pathlib
import shutil
import subprocess
import types

import numba
import numpy as np
import pytest

import gbgraph
from gbgraph.backends import operators as ops
from gbgraph.backends.cuda_translate import array_type, c_name, scalar_type, translate, translate_operator
from gbgraph.backends.numba import operators as compiled
from gbgraph.algorithms import coloring
from gbgraph.backends.operators import local

from conftest import gpu_available

KERNELS = pathlib.Path(gbgraph.__file__).parent / "backends" / "cupy" / "kernels"
GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="needs a host C++ compiler (g++)")


def needs_gpu(test):
    """Marked ``gpu``, skipped without CuPy and a GPU."""
    return pytest.mark.gpu(pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")(test))

LIMIT = 64

# ---- operators (restricted Python) -------------------------------------------------------


def arith(x, y):
    return x + y * 3 - (x - y) * 2


def floor_ops(x, y):
    return x // y + x % y * 7


def true_div(x, y):
    return x / y


def bits(x, y):
    return ((x << 3) ^ (x >> 2)) & (y | ~x)


def compare(x, y):
    return 0 < x < y or x == y and not x


def extremes(x, y):
    return max(min(x, y), abs(x - y))


def to_u64(x):
    return np.uint64(x)


def to_u32(x):
    return np.uint32(x)


def to_i32(x):
    return np.int32(x)


def to_f32(x):
    return np.float32(x) * np.float32(3)


def loops(x, y):
    s = 0
    for k in range(10, 0, -3):
        if k == 4:
            continue
        s += k * x
    n = 0
    while True:
        n += 1
        if n > y % 7:
            break
    for k in range(n):
        s -= k
    return s + n


def power(x, y):
    return x ** (y % 5) + 2 ** 10


def hash32(x):
    """Kokkos Kernels' xorshift hash (the design brief's f32)."""
    h = np.uint64(x)
    h ^= h >> np.uint64(12)
    h ^= h << np.uint64(25)
    h ^= h >> np.uint64(27)
    y = h * np.uint64(2685821657736338717) - np.uint64(1)
    return np.uint32(y >> np.uint64(16))


def bools(a, b):
    return (a & b) ^ (~a) | (-a + b > 0)


def values_of_and(x, y):
    return (x and y) or 5


def pick(x, y):
    return x if x > y else y * 0.5


def scale(x, y):
    return x * 2 + y


def with_helper(x, y):
    return scale(x, y) - scale(y, x) // 3


def with_array(x, y):
    a = local(LIMIT, np.int64)
    for k in range(LIMIT):
        a[k] = k * x
    total = 0
    for k in range(LIMIT - 1, -1, -2):
        total += a[k] % (y | 1)
    return total


def fresh_local_array(x, y):
    """A local array made again on each pass (zeros each time, as numba's np.zeros), and one
    made only on some calls (a row that skips it must not pay for clearing it)."""
    total = 0
    for k in range(y % 4 + 1):
        a = local(LIMIT, np.int64)
        a[k] = x + k
        for m in range(LIMIT):
            total += a[m]
    if x % 3 == 0:
        return total
    b = local(LIMIT, np.int64)
    b[(x % LIMIT + LIMIT) % LIMIT] += 1
    for m in range(LIMIT):
        total += b[m] * m
    return total


def argmax_row(i, start, stop, cols, vals, keys):
    """The column of the row's largest key (ties: the lowest column), -1 for an empty row."""
    best = -1
    best_key = np.uint64(0)
    for k in range(start, stop):
        j = cols[k]
        if vals[k] and (best < 0 or keys[j] > best_key):
            best = j
            best_key = keys[j]
    return best, best >= 0


def first_free(i, start, stop, cols, vals, colors):
    """The smallest color no neighbour holds (colors below 0: none), up to LIMIT."""
    taken = local(LIMIT, np.bool_)
    for k in range(start, stop):
        c = colors[cols[k]]
        if 0 <= c < LIMIT and cols[k] != i:
            taken[c] = True
    for c in range(LIMIT):
        if not taken[c]:
            return c, True
    return -1, False


def weighted_sum(i, start, stop, cols, vals, x, y):
    s = 0.0
    for k in range(start, stop):
        s += vals[k] * x[cols[k]] - y[i]
    return s, stop > start


def umin(x, y):
    return min(x, y)


def fsum(x, y):
    return x + y


def ranked(x, i, j, rank, key):
    """Keep (i, j) when (rank, key)(j) > (rank, key)(i): Jet's select."""
    return rank[j] > rank[i] or rank[j] == rank[i] and key[j] > key[i]


# ---- the host harness ----------------------------------------------------------------------

_PRELUDE = f"""#include <cmath>
#include <cstdio>
#include <cstdlib>
#define __device__
#define __forceinline__ inline
#include "{KERNELS / 'pyops.cuh'}"
"""


def _compile(tmp_path, source):
    src, exe = tmp_path / "harness.cpp", tmp_path / "harness"
    src.write_text(source)
    run = subprocess.run([GXX, "-std=c++17", "-O1", "-fwrapv", "-w", "-o", str(exe), str(src)], capture_output=True,
                         text=True)
    assert run.returncode == 0, f"g++ rejected the translation:\n{run.stderr}\n{source}"
    return exe


def _read(name, dtype, count):
    return (f"    {c_name(scalar_type(dtype))}* {name} = ({c_name(scalar_type(dtype))}*)malloc({count} * "
            f"sizeof({c_name(scalar_type(dtype))}) + 1);\n"
            f"    if (fread({name}, sizeof(*{name}), {count}, stdin) != (size_t)({count})) return 1;\n")


def host_scalar(tmp_path, func, columns, **options):
    """``func`` translated and run on the host at each position of the arrays ``columns``."""
    t = translate(func, tuple(scalar_type(c.dtype) for c in columns), **options)
    out = c_name(t.result)
    reads = "".join(_read(f"a{k}", c.dtype, "n") for k, c in enumerate(columns))
    args = ", ".join(f"a{k}[k]" for k in range(len(columns)))
    exe = _compile(tmp_path, f"""{_PRELUDE}{t.code}
int main() {{
    long long n;
    if (fread(&n, 8, 1, stdin) != 1) return 1;
{reads}    for (long long k = 0; k < n; ++k) {{
        {out} r = {t.entry}::call({args});
        fwrite(&r, sizeof(r), 1, stdout);
    }}
    return 0;
}}
""")
    data = np.int64(columns[0].size).tobytes() + b"".join(np.ascontiguousarray(c).tobytes() for c in columns)
    result = subprocess.run([str(exe)], input=data, capture_output=True, check=True).stdout
    return np.frombuffer(result, numba.np.numpy_support.as_dtype(t.result))


def _numba(func, helpers=()):
    """numba's compilation of ``func``, its helpers compiled too."""
    scope = dict(func.__globals__, **{h.__name__: numba.njit(h) for h in helpers})
    return numba.njit(types.FunctionType(func.__code__, scope, func.__name__))


def numba_scalar(func, columns, helpers=()):
    f = _numba(func, helpers)
    values = [f(*(c[k] for c in columns)) for k in range(columns[0].size)]
    return np.array(values, numba.np.numpy_support.as_dtype(f.nopython_signatures[0].return_type))


def _same(got, want):
    """Equal values and dtype, bit for bit (nan equal to nan, -0.0 apart from 0.0)."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got.view(f"u{got.dtype.itemsize}") if got.dtype.kind == "f" else got,
                                  want.view(f"u{want.dtype.itemsize}") if want.dtype.kind == "f" else want)


def _sample(dtype, size, rng, low=None, high=None):
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.integers(0, 2, size).astype(bool)
    if dtype.kind == "f":
        low, high = (-1e6, 1e6) if low is None else (low, high)
        x = rng.uniform(low, high, size)
        x[: size // 4] = np.round(x[: size // 4])  # integral values: floor/mod edges, exact halves
        x[size // 4: size // 2] = np.round(x[size // 4: size // 2]) + 0.5
        return x.astype(dtype)
    info = np.iinfo(dtype)
    low = info.min if low is None else max(low, info.min)
    high = info.max if high is None else min(high, info.max)
    x = rng.integers(low, high, size, dtype=dtype, endpoint=True)
    x[: size // 8] = rng.integers(max(low, -9), min(high, 9), size // 8, endpoint=True)  # small values
    return x




@needs_gxx
@pytest.mark.parametrize("func", [arith, extremes, compare, pick, values_of_and, with_helper])
@pytest.mark.parametrize("types", [("int32", "int32"), ("int64", "uint64"), ("uint32", "int32"), ("uint64", "uint64"),
                                   ("float32", "float32"), ("int64", "float64"), ("float32", "float64"),
                                   ("bool", "int64")])
def test_translated_scalars_equal_numba(tmp_path, func, types):
    rng = np.random.default_rng(7)
    # numba's signed overflow is undefined (LLVM's nsw): arithmetic stays within 64 bits
    bounds = {"i": (-2**40, 2**40), "u": (0, 2**40)} if func in (arith, extremes, with_helper) else {}
    columns = [_sample(t, 400, rng, *bounds.get(np.dtype(t).kind, ())) for t in types]
    helpers = (scale,) if func is with_helper else ()
    _same(host_scalar(tmp_path, func, columns, helpers=helpers), numba_scalar(func, columns, helpers))


@needs_gxx
@pytest.mark.parametrize("types", [("int64", "int64"), ("int32", "int64"), ("uint64", "uint64"), ("uint32", "uint32"),
                                   ("int64", "uint64"), ("float64", "float64"), ("float32", "float32"),
                                   ("int64", "float64")])
def test_floor_division_and_modulo_are_pythons(tmp_path, types):
    rng = np.random.default_rng(3)
    x = _sample(types[0], 600, rng)
    y = _sample(types[1], 600, rng)
    y[y == 0] = 3  # Python and numba raise on a zero divisor
    signed = np.dtype(types[0]).kind == "i" and np.dtype(types[1]).kind == "i"
    if signed:  # both signs of each operand
        x[:100], y[:100] = -np.abs(x[:100] // 2), np.abs(y[:100] // 2) + 1
        y[100:200] = -np.abs(y[100:200] // 2) - 1
    _same(host_scalar(tmp_path, floor_ops, [x, y]), numba_scalar(floor_ops, [x, y]))
    _same(host_scalar(tmp_path, true_div, [x, y]), numba_scalar(true_div, [x, y]))


@needs_gxx
@pytest.mark.parametrize("types", [("int64", "int64"), ("int32", "int64"), ("uint64", "uint64"), ("uint32", "int32"),
                                   ("bool", "bool")])
def test_bitwise_and_shifts_equal_numba(tmp_path, types):
    rng = np.random.default_rng(5)
    x, y = _sample(types[0], 400, rng), _sample(types[1], 400, rng)
    func = bools if types[0] == "bool" else bits
    _same(host_scalar(tmp_path, func, [x, y]), numba_scalar(func, [x, y]))


@needs_gxx
@pytest.mark.parametrize("func", [to_u64, to_u32, to_i32, to_f32])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint64", "bool"])
def test_casts_equal_numba(tmp_path, func, dtype):
    rng = np.random.default_rng(11)
    # a float outside the target's range casts to an undefined value in numba (LLVM's fptoui)
    low, high = {"to_u64": (0, 9e18), "to_u32": (0, 4e9), "to_i32": (-2e9, 2e9),
                 "to_f32": (-1e30, 1e30)}[func.__name__]
    x = _sample(dtype, 400, rng, *((low, high) if np.dtype(dtype).kind == "f" else ()))
    _same(host_scalar(tmp_path, func, [x]), numba_scalar(func, [x]))


@needs_gxx
@pytest.mark.parametrize("func", [loops, power, with_array, fresh_local_array])
@pytest.mark.parametrize("types", [("int64", "int64"), ("int32", "uint32"), ("uint64", "int64")])
def test_control_flow_and_local_arrays_equal_numba(tmp_path, func, types):
    rng = np.random.default_rng(13)
    x, y = (_sample(t, 300, rng, 0 if np.dtype(t).kind == "u" else -50, 50) for t in types)
    options = {"constants": {"LIMIT": LIMIT}} if func in (with_array, fresh_local_array) else {}
    _same(host_scalar(tmp_path, func, [x, y], **options), numba_scalar(func, [x, y]))


@needs_gxx
def test_hash_equals_numba(tmp_path):
    x = np.arange(-1000, 1000, dtype=np.int64) * 7919
    _same(host_scalar(tmp_path, hash32, [x]), numba_scalar(hash32, [x]))


def _csr(n, rng, pattern=False, density=0.3):
    """(indptr, int32 columns, float64 values or None) of a random n x n matrix, some rows empty."""
    mask = rng.random((n, n)) < density
    mask[::7] = False
    indptr = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(np.int64)
    cols = np.nonzero(mask)[1].astype(np.int32)
    vals = None if pattern else np.round(rng.uniform(-4, 4, cols.size), 1)
    return indptr, cols, vals


def host_rows(tmp_path, op, indptr, cols, vals, vectors):
    """(values, present) of row operator ``op`` translated and run on the host for every row."""
    index = scalar_type(np.int64)
    argtypes = (index, index, index, array_type(np.int64), array_type(bool if vals is None else vals.dtype))
    argtypes += tuple(array_type(v.dtype) for v in vectors)
    t = translate_operator(op, argtypes, pattern=("vals",) if vals is None else (), storage={"cols": cols.dtype})
    n = indptr.size - 1
    arrays = [("indptr", indptr), ("cols", cols)] + ([] if vals is None else [("vals", vals)]) + \
        [(f"v{k}", v) for k, v in enumerate(vectors)]
    reads = "".join(_read(name, a.dtype, a.size) for name, a in arrays)
    args = ", ".join(["r", "indptr[r]", "indptr[r + 1]", "cols", "(const bool*)0" if vals is None else "vals"] +
                     [f"v{k}" for k in range(len(vectors))])
    exe = _compile(tmp_path, f"""{_PRELUDE}{t.code}
int main() {{
{reads}    for (long long r = 0; r < {n}; ++r) {{
        {c_name(t.result)} value = 0;
        const unsigned char present = {t.entry}::call({args}, &value);
        fwrite(&value, sizeof(value), 1, stdout);
        fwrite(&present, 1, 1, stdout);
    }}
    return 0;
}}
""")
    data = b"".join(np.ascontiguousarray(a).tobytes() for _, a in arrays)
    raw = subprocess.run([str(exe)], input=data, capture_output=True, check=True).stdout
    dtype = numba.np.numpy_support.as_dtype(t.result)
    records = np.frombuffer(raw, np.dtype([("value", dtype), ("present", np.uint8)]))
    return records["value"].copy(), records["present"].astype(bool)


def numba_rows(op, indptr, cols, vals, vectors):
    f = _numba(op.func, op.helpers)
    vals = np.ones(cols.size, bool) if vals is None else vals
    results = [f(r, indptr[r], indptr[r + 1], cols.astype(np.int64), vals, *vectors) for r in range(indptr.size - 1)]
    dtype = numba.np.numpy_support.as_dtype(f.nopython_signatures[0].return_type[0])
    return np.array([v for v, _ in results], dtype), np.array([p for _, p in results], bool)


def compiled_rows(op, indptr, cols, vectors, dtype):
    """(values as ``dtype``, presence) of ``op`` on every row of a pattern by numba's own
    program of the operator (constants, local arrays), as the backends run it."""
    f = compiled._row_module(op, np.dtype(bool), tuple(v.dtype for v in vectors))._gb_op
    results = [f(r, indptr[r], indptr[r + 1], cols.astype(np.int64), np.ones(cols.size, bool), *vectors)
               for r in range(indptr.size - 1)]
    return np.array([v for v, _ in results], dtype), np.array([p for _, p in results], bool)


def _rows_equal(got, want):
    (values, present), (want_values, want_present) = got, want
    np.testing.assert_array_equal(present, want_present)
    _same(values[present], want_values[want_present])


@needs_gxx
@pytest.mark.parametrize("pattern", [True, False], ids=["pattern", "valued"])
def test_translated_row_operators_equal_numba(tmp_path, pattern):
    rng = np.random.default_rng(17)
    n = 60
    indptr, cols, vals = _csr(n, rng, pattern)
    keys = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    keys[:10] = 5  # ties: the lowest column wins
    colors = rng.integers(-1, 6, n).astype(np.int64)
    x, y = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n).astype(np.float32)
    cases = [(ops.RowOperator(argmax_row, fill=0), (keys,)),
             (ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT}), (colors,)),
             (ops.RowOperator(weighted_sum, fill=0.0), (x, y))]
    for k, (op, vectors) in enumerate(cases):
        path = tmp_path / str(k)
        path.mkdir()
        _rows_equal(host_rows(path, op, indptr, cols, vals, vectors), numba_rows(op, indptr, cols, vals, vectors))


@needs_gxx
def test_coloring_operators_translate_to_numbas_values(tmp_path):
    """The row operators and binary operators of gbgraph/algorithms/coloring.py (first fits,
    depths, rivals; the distance-2 window's bits and their colors), translated and run on
    the host, against numba's compilation."""
    from gbgraph.algorithms import coloring

    rng = np.random.default_rng(23)
    n = 70
    indptr, cols, _ = _csr(n, rng, pattern=True, density=0.6)
    colors = rng.integers(-1, 150, n).astype(np.int64)  # rows see over 64 colors: windows past the first
    colors[:50] = np.arange(50) * 3 % 140
    words = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True) | np.uint64(0xFFFFFFFF7FFFFFFF)
    words[::3] = rng.integers(0, 2**20, words[::3].size, dtype=np.uint64)
    position = rng.permutation(n).astype(np.int64)
    position[::4] = -1
    keys = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    groups = rng.integers(-1, 4, n).astype(np.int64)
    hi = rng.integers(0, 9, n).astype(np.uint64)  # net summaries: unbroken runs (count = hi), broken ones, blocked
    summaries = (hi << np.uint64(32)) | np.where(rng.random(n) < 0.97, hi, hi // np.uint64(2))
    summaries[rng.random(n) < 0.01] |= np.uint64(1 << 63)
    due = colors.copy()  # a few rows without a value: the ones a round may give one
    due[rng.choice(n, 6, replace=False)] = -1
    cases = [(coloring.FIRST_FIT, (colors,)), (coloring.FIRST_FIT_WHEN_READY, (due, position)),
             (coloring.CHAIN_DEPTH, (colors,)), (coloring.CHAIN_DEPTH_WHEN_READY, (due, position)),
             (coloring.SAME_GROUP_WON, (keys, groups)), (coloring.CLOSED_FIT, (summaries,)),
             (coloring.FREE_BIT, (words,))]
    for k, (op, vectors) in enumerate(cases):
        path = tmp_path / str(k)
        path.mkdir()
        got = host_rows(path, op, indptr, cols, None, vectors)
        want = compiled_rows(op, indptr, cols, vectors, got[0].dtype)
        _rows_equal(got, want)
        assert want[1].any(), op
    assert (got[0][got[1]] != 0).all() and not got[1].all()  # FREE_BIT: bits, and full windows
    bits = np.uint64(1) << rng.integers(0, 64, 40).astype(np.uint64)
    for k, (op, x, y) in enumerate([(coloring.WINDOW_BIT, colors, np.int64(64)),
                                    (coloring.COLOR_OF, bits, np.int64(128)),
                                    (coloring.HI_COUNT, summaries, summaries[::-1].copy())]):
        t = translate_operator(op, (scalar_type(x.dtype), scalar_type(y.dtype)))
        (tmp_path / f"binary{k}").mkdir()
        ys = np.full(x.size, y, y.dtype) if np.ndim(y) == 0 else y
        exe = _compile(tmp_path / f"binary{k}", f"""{_PRELUDE}{t.code}
int main() {{
{_read("x", x.dtype, x.size)}{_read("y", ys.dtype, ys.size)}    for (long long k = 0; k < {x.size}; ++k) {{
        const {c_name(t.result)} z = {t.entry}::call(x[k], y[k]);
        fwrite(&z, sizeof(z), 1, stdout);
    }}
    return 0;
}}
""")
        raw = subprocess.run([str(exe)], input=x.tobytes() + ys.tobytes(), capture_output=True, check=True).stdout
        f = numba.njit(op.func)
        want = np.array([f(a, b) for a, b in zip(x, ys)])
        np.testing.assert_array_equal(np.frombuffer(raw, want.dtype), want)
    for k, (op, x) in enumerate([(coloring.AS_HI_COUNT, np.abs(colors)), (coloring.PACKED_COLOR, summaries),
                                 (coloring.FULL_UPTO, summaries)]):
        (tmp_path / f"unary{k}").mkdir()
        t = translate_operator(op, (scalar_type(x.dtype),))
        exe = _compile(tmp_path / f"unary{k}", f"""{_PRELUDE}{t.code}
int main() {{
{_read("x", x.dtype, x.size)}    for (long long k = 0; k < {x.size}; ++k) {{
        const {c_name(t.result)} z = {t.entry}::call(x[k]);
        fwrite(&z, sizeof(z), 1, stdout);
    }}
    return 0;
}}
""")
        raw = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
        f = numba.njit(op.func)
        want = np.array([f(a) for a in x])
        np.testing.assert_array_equal(np.frombuffer(raw, want.dtype), want)


@needs_gxx
def test_translated_vector_predicate_equals_numba(tmp_path):
    """An IndexUnaryOp reading vectors at i and j (Jet's select), on every (i, j)."""
    rng = np.random.default_rng(19)
    n = 40
    rank = rng.integers(0, 4, n).astype(np.int64)
    key = rng.integers(0, 2**63, n, dtype=np.uint64)
    i, j = (a.ravel().astype(np.int64) for a in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    x = rng.uniform(0, 1, i.size)
    op = ops.IndexUnaryOp(ranked)
    index = scalar_type(np.int64)
    t = translate_operator(op, (scalar_type(np.float64), index, index, array_type(np.int64), array_type(np.uint64)))
    arrays = [("x", x), ("i", i), ("j", j), ("rank", rank), ("key", key)]
    exe = _compile(tmp_path, f"""{_PRELUDE}{t.code}
int main() {{
{"".join(_read(name, a.dtype, a.size) for name, a in arrays)}    for (long long k = 0; k < {i.size}; ++k) {{
        const bool keep = {t.entry}::call(x[k], i[k], j[k], rank, key);
        fwrite(&keep, 1, 1, stdout);
    }}
    return 0;
}}
""")
    raw = subprocess.run([str(exe)], input=b"".join(a.tobytes() for _, a in arrays), capture_output=True,
                         check=True).stdout
    f = numba.njit(ranked)
    want = np.array([f(x[k], i[k], j[k], rank, key) for k in range(i.size)])
    np.testing.assert_array_equal(np.frombuffer(raw, bool), want)
    assert 0 < want.sum() < want.size


def test_untranslatable_operators_name_the_problem():
    def mixed(x, y):
        if x > 0:
            z = 1
        else:
            z = 2.5
        return z

    with pytest.raises(TypeError, match="local 'z'"):
        translate(mixed, (scalar_type(np.int64), scalar_type(np.int64)))
    with pytest.raises(TypeError, match=r"\*\* on float64"):
        translate(power, (scalar_type(np.float64), scalar_type(np.int64)))


# ---- the cupy backend against the numba backend (run on a GPU: pytest -m gpu) -------------

def heaviest(i, start, stop, cols, vals, w):
    """The largest weight times w over the row, present when above w(i)."""
    best = w[i]
    for p in range(start, stop):
        best = max(best, vals[p] * w[cols[p]])
    return best, best > w[i]


def _clamp(x, high):
    return min(max(x, 0), high)


def clamped_degree(i, start, stop, cols, vals, shift):
    return _clamp(stop - start - shift[i], 9), True


def absdiff(x, y):
    return x - y if x > y else y - x


def position_code(x, i, j, t):
    return i * 100 + j * t + x


def weighted(a, u):
    return np.uint64(a * 10.0) + u


ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
def _on(name):
    return gbgraph.backend(name)


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _agree(name, got, want, got_be="cupy", want_be="numba"):
    """Backend ``got_be``'s result ``got`` equals backend ``want_be``'s ``want``: entries,
    values and dtype (vectors, matrices or scalars)."""
    if want is None or isinstance(want, np.generic):
        assert got is None if want is None else (type(got) is type(want) and got == want), (name, got, want)
        return
    got_t, want_t = _on(got_be).extract_tuples(got), _on(want_be).extract_tuples(want)
    assert len(got_t) == len(want_t), name
    for g, w in zip(got_t, want_t):
        g, w = _host(g), _host(w)
        assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
        _same(g, w)


def _objects(be, seed=0, n=60, density=0.1):
    """The same operands on backend ``be``: a pattern and a weighted matrix (symmetric), sparse
    and full vectors of several dtypes, masks."""
    rng = np.random.default_rng(seed)
    pattern = rng.random((n, n)) < density
    pattern = pattern | pattern.T
    np.fill_diagonal(pattern, False)
    pattern[3] = pattern[:, 3] = False  # an isolated vertex: an empty row
    indptr = np.concatenate([[0], np.cumsum(pattern.sum(axis=1))]).astype(np.int64)
    cols = np.nonzero(pattern)[1].astype(np.int64)
    weights = np.round(rng.uniform(0.5, 4.0, cols.size), 2)
    some = np.flatnonzero(rng.random(n) < 0.5).astype(np.int64)
    others = np.flatnonzero(rng.random(n) < 0.5).astype(np.int64)
    return dict(
        P=be.matrix(indptr, cols, ncols=n), W=be.matrix(indptr, cols, ncols=n, values=weights),
        K=be.matrix(indptr, cols, ncols=n, values=rng.integers(0, 2**63, cols.size, dtype=np.int64).astype(np.uint64)),
        i32=be.vector(some, rng.integers(-50, 50, some.size).astype(np.int32), n),
        i64=be.vector(others, rng.integers(0, 50, others.size).astype(np.int64), n),
        u64=be.vector(some, rng.integers(0, 2**40, some.size, dtype=np.uint64), n),
        f32=be.vector(some, rng.uniform(-5, 5, some.size).astype(np.float32), n),
        f64=be.full(n, rng.uniform(0, 1, n), "float64"),
        rank=be.full(n, rng.integers(0, 4, n).astype(np.int64), "int64"),
        key=be.full(n, rng.permutation(n).astype(np.uint32), "uint32"),
        colors=be.vector(some, rng.integers(0, 6, some.size).astype(np.int64), n),
        shift=be.full(n, np.arange(n) % 3, "int64"),
        priority=be.full(n, rng.integers(0, 10, n).astype(np.int64), "int64"),
        mask=be.vector(others, True, n),
        flags=be.vector(some, rng.random(some.size) < 0.5, n),
        n=n)


_CASES = {
    "apply unary int32": lambda be, o: be.apply(ops.UnaryOp(hash32), o["i32"]),
    "apply unary on a matrix": lambda be, o: be.apply(ops.UnaryOp(hash32), o["K"]),
    "apply bound right": lambda be, o: be.apply(ops.BinaryOp(arith), o["f32"], right=3),
    "apply bound left": lambda be, o: be.apply(ops.BinaryOp(absdiff), o["f32"], left=np.float32(2.5)),
    "apply masked": lambda be, o: be.apply(ops.UnaryOp(hash32), o["i32"], mask=o["mask"], complement=True),
    "ewise_add": lambda be, o: be.ewise_add(ops.BinaryOp(absdiff), o["i32"], o["i64"]),
    "ewise_mult": lambda be, o: be.ewise_mult(ops.BinaryOp(absdiff), o["i32"], o["i64"]),
    "ewise_add monoid cast": lambda be, o: be.ewise_add(ops.Monoid(umin, ALL), o["i64"], o["u64"]),
    "ewise_add full": lambda be, o: be.ewise_add(ops.BinaryOp(arith), o["f64"], o["f64"]),
    "apply_index matrix": lambda be, o: be.apply_index(ops.IndexUnaryOp(position_code), o["W"], 7),
    "apply_index vector": lambda be, o: be.apply_index(ops.IndexUnaryOp(position_code), o["i32"], 7),
    "select matrix by vectors": lambda be, o: be.select(ops.IndexUnaryOp(ranked), o["P"], (o["rank"], o["key"])),
    "select valued matrix": lambda be, o: be.select(ops.IndexUnaryOp(ranked), o["W"], (o["rank"], o["key"])),
    "select vector by vectors": lambda be, o: be.select(ops.IndexUnaryOp(ranked), o["f32"], (o["rank"], o["key"])),
    "select vector scalar": lambda be, o: be.select(ops.IndexUnaryOp(position_code), o["i64"], -2),
    "reduce vector": lambda be, o: be.reduce(o["u64"], ops.Monoid(umin, ALL)),
    "reduce matrix": lambda be, o: be.reduce(o["K"], ops.Monoid(umin, ALL)),
    "reduce floats in order": lambda be, o: be.reduce(o["f64"], ops.Monoid(fsum, 0.0)),
    "reduce empty": lambda be, o: be.reduce(be.vector(np.empty(0, np.int64), np.empty(0, np.uint64), 5),
                                            ops.Monoid(umin, ALL)),
    "reduce_rows": lambda be, o: be.reduce_rows(o["K"], ops.Monoid(umin, ALL)),
    "reduce_rows floats": lambda be, o: be.reduce_rows(o["W"], ops.Monoid(fsum, 0.0)),
    "reduce_cols": lambda be, o: be.reduce_cols(o["K"], ops.Monoid(umin, ALL)),
    "mxv monoid second": lambda be, o: be.mxv(ops.Semiring(ops.Monoid(umin, ALL), "second"), o["P"], o["u64"]),
    "mxv monoid masked": lambda be, o: be.mxv(ops.Semiring(ops.Monoid(umin, ALL), "second"), o["P"], o["u64"],
                                              mask=o["mask"]),
    "mxv value mask": lambda be, o: be.mxv(ops.Semiring(ops.Monoid(umin, ALL), "pair"), o["P"], o["u64"],
                                           mask=o["flags"], structure=False),
    "mxm user semiring (on the host)": lambda be, o: be.mxm(ops.Semiring(ops.Monoid(umin, ALL), "second"), o["P"],
                                                            o["K"]),
    "vxm monoid first": lambda be, o: be.vxm(ops.Semiring(ops.Monoid(umin, ALL), "first"), o["u64"], o["P"]),
    "mxv user multiply": lambda be, o: be.mxv(ops.Semiring(ops.Monoid(umin, ALL), ops.BinaryOp(weighted)), o["W"],
                                              be.full(o["n"], np.arange(o["n"], dtype=np.uint64), "uint64")),
    "row operator": lambda be, o: be.mxv(ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT}), o["P"],
                                         o["colors"]),
    "row operator masked": lambda be, o: be.mxv(ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT}),
                                                o["P"], o["colors"], mask=o["mask"]),
    "row operator complement": lambda be, o: be.mxv(ops.RowOperator(first_free, fill=-1, constants={"LIMIT": 2}),
                                                    o["P"], o["colors"], mask=o["mask"], complement=True),
    "row operator value mask": lambda be, o: be.mxv(ops.RowOperator(argmax_row, fill=0), o["K"], o["u64"],
                                                    mask=o["flags"], structure=False),
    "row operator valued": lambda be, o: be.mxv(ops.RowOperator(heaviest, fill=None), o["W"], o["f64"]),
    "row operator two vectors": lambda be, o: be.mxv(ops.RowOperator(weighted_sum, fill=0.5), o["W"],
                                                     (o["f64"], o["f32"])),
    "row operator helper": lambda be, o: be.mxv(ops.RowOperator(clamped_degree, fill=None, helpers=(_clamp,)),
                                                o["P"], o["shift"]),
    "row operator ordered": lambda be, o: be.mxv(ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT}),
                                                 o["P"], o["colors"], order=o["priority"]),
    "row operator ordered masked": lambda be, o: be.mxv(
        ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT}), o["P"], be.full(o["n"], -1, "int64"),
        mask=o["mask"], order=o["priority"]),
    "row operator ordered push bor": lambda be, o: be.mxv(coloring.FREE_BIT, o["P"], o["u64"], order=o["priority"],
                                                          push="bor"),
    "row operator ordered push max masked": lambda be, o: be.mxv(coloring.CHAIN_DEPTH, o["P"], o["i64"],
                                                                 mask=o["mask"], order=o["priority"], push="max"),
    "row operator ordered push monoid": lambda be, o: be.mxv(coloring.FREE_BIT, o["P"], o["u64"], order=o["rank"],
                                                             push=ops.Monoid(umin, ALL)),
    "row operator ordered push plus floats": lambda be, o: be.mxv(ops.RowOperator(weighted_sum, fill=0.5), o["W"],
                                                                  (o["f64"], o["f32"]), order=o["priority"],
                                                                  push="plus"),
    "row operator output controls": lambda be, o: be.mxv(
        ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT}), o["P"], o["colors"],
        out=be.full(o["n"], 7, "int64"), accum="plus", mask=o["mask"]),
}


@pytest.mark.parametrize("case", sorted(_CASES))
@pytest.mark.parametrize("seed", [0, 1])
@needs_gpu
def test_cupy_equals_numba(case, seed):
    numba_be, cupy_be = _on("numba"), _on("cupy")
    want = _CASES[case](numba_be, _objects(numba_be, seed))
    got = _CASES[case](cupy_be, _objects(cupy_be, seed))
    _agree(case, got, want)


@needs_gpu
def test_cupy_row_operators_on_a_large_graph():
    """Many blocks of threads: parallel and ordered row operators on 3,000 rows."""
    op = ops.RowOperator(first_free, fill=-1, constants={"LIMIT": LIMIT})
    results = []
    for name in ("numba", "cupy"):
        be = _on(name)
        o = _objects(be, seed=5, n=3000, density=0.003)
        results.append((be.mxv(op, o["P"], o["colors"]), be.mxv(op, o["P"], o["colors"], order=o["priority"]),
                        be.select(ops.IndexUnaryOp(ranked), o["P"], (o["rank"], o["key"]))))
    for want, got in zip(*results):
        _agree("large", got, want)


@needs_gpu
def test_cupy_rejects_bad_calls_as_numba_does():
    be = _on("cupy")
    o = _objects(be)
    with pytest.raises(ValueError, match="must be full"):
        be.select(ops.IndexUnaryOp(ranked), o["P"], (o["colors"], o["key"]))
    with pytest.raises(ValueError, match="must be full"):
        be.mxv(ops.RowOperator(heaviest, fill=None), o["W"], o["f32"])
    with pytest.raises(ValueError, match="order has no entry"):
        be.mxv(ops.RowOperator(first_free, fill=-1, constants={"LIMIT": 8}), o["P"], o["colors"], order=o["i64"])
    with pytest.raises(ValueError, match="order= is for a RowOperator"):
        be.mxv("min_second", o["P"], o["f64"], order=o["priority"])
    with pytest.raises(TypeError, match="takes Monoid"):
        be.reduce(o["i64"], ops.BinaryOp(umin))


# ---- the launchers' kernels compile (nvcc; no GPU needed) ----------------------------------

NVCC = shutil.which("nvcc")

_RECORD = r'''
import json, sys, types
import numpy as np

sys.path.insert(0, sys.argv[1])
import test_operators_gpu as T  # noqa: E402 (before CuPy's stand-in: its conftest looks for CuPy)
from gbgraph.backends import operators as ops  # noqa: E402

recorded = []
cupy = types.ModuleType("cupy")
for name in ("empty", "ones", "zeros", "full", "arange", "ascontiguousarray", "array", "uint8", "int64", "int32"):
    setattr(cupy, name, getattr(np, name))
cupy.ndarray = np.ndarray


class RawModule:  # records each translation unit and the kernel instance asked for
    def __init__(self, code, options, name_expressions, **kwargs):
        self.code = code

    def get_function(self, name):
        return lambda grid, block, args, **kwargs: recorded.append((self.code, name, len(args)))


cupy.RawModule = RawModule
cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDevice=lambda: 0),
                                  Device=lambda d: types.SimpleNamespace(attributes={"MultiProcessorCount": 8}))
sys.modules["cupy"] = cupy
import gbgraph.backends  # noqa: E402

package = types.ModuleType("gbgraph.backends.cupy")  # the launchers without the backend (which needs CuPy)
package.__path__ = [str(__import__("pathlib").Path(gbgraph.backends.__file__).parent / "cupy")]
sys.modules["gbgraph.backends.cupy"] = package
import importlib  # noqa: E402

user = importlib.import_module("gbgraph.backends.cupy.operators")


class Matrix:
    def __init__(self, n, values):
        self.indptr = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
        self.indices = np.arange(2 * n, dtype=np.int32) % n
        self.values, self.nrows, self.ncols = values, n, n

    @property
    def dtype(self):
        return np.dtype(bool) if self.values is None else self.values.dtype


n = 8
i64, f32, u64 = np.arange(n, dtype=np.int64), np.arange(n, dtype=np.float32), np.arange(n, dtype=np.uint64)
umin = ops.Monoid(T.umin, np.uint64(2**64 - 1))
user.unary(ops.UnaryOp(T.hash32), i64, None, n)
user.bound(ops.BinaryOp(T.arith), f32, np.int64(3), True)
user.binary(ops.BinaryOp(T.absdiff), i64, f32)
user.index_unary(ops.IndexUnaryOp(T.ranked), None, np.dtype(bool), i64, i64.astype(np.int32), (i64, u64), None, n, n)
user.index_unary(ops.IndexUnaryOp(T.position_code), f32, f32.dtype, None, None, np.int64(7), None, n, n)
user.reduce_rows(umin, np.arange(0, n + 1, dtype=np.int64), u64, i64)
user.semiring_rows(ops.Semiring(umin, "second"), Matrix(n, None), u64, np.ones(n, np.uint8), None, None, n, n, True)
user.semiring_rows(ops.Semiring(umin, ops.BinaryOp(T.weighted)), Matrix(n, np.ones(2 * n)), u64, None, i64, None,
                   n, n, False)
user.row_operator(ops.RowOperator(T.argmax_row, fill=0), Matrix(n, None), (u64,), None, None, n, n)
user.row_operator(ops.RowOperator(T.weighted_sum, fill=0.0), Matrix(n, np.ones(2 * n)), (f32.astype(np.float64), f32),
                  i64, np.zeros(1, np.int64), n, n)
user.row_operator(ops.RowOperator(T.first_free, fill=-1, constants={"LIMIT": 64}), Matrix(n, None), (i64,), i64, None,
                  n, n, i64[::-1].copy())
user.row_operator(T.coloring.FREE_BIT, Matrix(n, None), (u64,), i64, None, n, n, i64[::-1].copy(), "bor")
user.row_operator(T.coloring.CHAIN_DEPTH, Matrix(n, None), (i64,), i64, None, n, n, i64[::-1].copy(), umin)
try:
    user.reduce(umin, np.arange(1000, dtype=np.uint64))  # chunks, then their fold
except AttributeError:  # the partial sum's .get(): numpy has none
    pass
print(json.dumps(recorded))
'''


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="needs nvcc")
def test_launchers_instantiate_kernels_that_compile(tmp_path):
    """Each launcher of cupy/operators.py, run with CuPy replaced by a recorder (in a
    subprocess), asks for a kernel instance that nvcc compiles after the translated functor,
    with as many arguments as the kernel takes."""
    import json
    import re
    import sys

    script = tmp_path / "record.py"
    script.write_text(_RECORD)
    run = subprocess.run([sys.executable, str(script), str(pathlib.Path(__file__).parent)], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    recorded = json.loads(run.stdout.splitlines()[-1])
    assert len(recorded) == 15
    source = (KERNELS / "operators.cu").read_text()
    for k, (code, name, count) in enumerate(recorded):
        unit = tmp_path / f"unit{k}.cu"
        unit.write_text(f"{code}\nvoid* instance = (void*)&{name};\n")
        result = subprocess.run([NVCC, "-std=c++17", "-arch=sm_80", f"-I{KERNELS}", "-c", str(unit), "-o",
                                 str(tmp_path / f"unit{k}.o")], capture_output=True, text=True)
        assert result.returncode == 0, f"{name}:\n{result.stderr}"
        template = re.search(r"gbgraph::(\w+)<", name).group(1)
        parameters = re.search(rf"__global__ void {template}\((.*?)\)\s*\{{", source, re.S).group(1).split(",")
        packs = sum("..." in p for p in parameters)  # a pack takes the rest
        assert count == len(parameters) if not packs else count >= len(parameters) - packs, (name, count)


_DRY = r'''
import json, sys, types
import numpy as np

sys.path.insert(0, sys.argv[1])
import test_operators_gpu as T  # noqa: E402 (before CuPy's stand-in: its conftest looks for CuPy)


class Array(np.ndarray):  # numpy standing for CuPy: .get() brings "device" arrays to the host
    def get(self):
        return np.asarray(self)

    @property
    def data(self):  # CuPy's MemoryPointer, for the memsets of cupy/__init__.py's _filled
        raw = np.asarray(self).reshape(-1).view(np.uint8)
        return types.SimpleNamespace(memset_async=lambda value, size: raw[:size].fill(value))


def _wrap(f):
    def g(*args, **kwargs):
        result = f(*[np.asarray(a) if isinstance(a, Array) else a for a in args], **kwargs)
        return result.view(Array) if isinstance(result, np.ndarray) else result
    return g


cupy = types.ModuleType("cupy")
for name in dir(np):
    if not name.startswith("__"):
        value = getattr(np, name)
        setattr(cupy, name, _wrap(value) if callable(value) and not isinstance(value, type) else value)
cupy.ndarray, cupy.asnumpy = Array, np.asarray
launched = []


class RawModule:  # kernels launch nothing; their names are recorded
    def __init__(self, code, options, name_expressions, **kwargs):
        pass

    def get_function(self, name):
        return lambda grid, block, args, **kwargs: launched.append(name.split("<")[0])


cupy.RawModule = RawModule
cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDevice=lambda: 0),
                                  Device=lambda d: types.SimpleNamespace(attributes={"MultiProcessorCount": 8}),
                                  memory=types.SimpleNamespace(OutOfMemoryError=MemoryError),
                                  get_current_stream=lambda: types.SimpleNamespace(ptr=0))
sparse = types.ModuleType("cupyx.scipy.sparse")
sys.modules.update({"cupy": cupy, "cupyx": types.ModuleType("cupyx"), "cupyx.scipy": types.ModuleType("cupyx.scipy"),
                    "cupyx.scipy.sparse": sparse})
from gbgraph.backends.cupy import CupyBackend  # noqa: E402

be, report = CupyBackend(), {}
for case in sorted(T._CASES):
    launched.clear()
    try:
        T._CASES[case](be, T._objects(be, 0))
        report[case] = sorted(set(launched))
    except Exception as error:  # noqa: BLE001 - reported to the test
        report[case] = f"{type(error).__name__}: {error}"
print(json.dumps(report))
'''

#: The kernel of cupy/operators.py each case runs on the device (the others run on the host).
_DEVICE_KERNELS = {"apply": "map_", "ewise_mult": "map_binary", "ewise_add full": "map_binary", "apply_index": "index_unary", "select": "index_unary",
                   "reduce_rows": "reduce_rows", "reduce_cols": "reduce_rows", "reduce ": "reduce_chunks",
                   "mxv": "semiring_rows", "vxm": "semiring_rows", "row operator ordered": "row_operator_ordered",
                   "row operator ordered push": "row_operator_ordered",
                   "row operator": "row_operator"}


@pytest.mark.slow
def test_cupy_operator_paths_run_with_numpy_standing_for_cupy(tmp_path):
    """Every case of the GPU suite, through the cupy backend with numpy standing for CuPy and
    kernels that launch nothing (in a subprocess): no Python error on any path, and each
    device case asks for its kernel of operators.cu (values are the GPU suite's business)."""
    import json
    import sys

    script = tmp_path / "dry.py"
    script.write_text(_DRY)
    run = subprocess.run([sys.executable, str(script), str(pathlib.Path(__file__).parent)], capture_output=True,
                         text=True, env={**__import__("os").environ, "GBGRAPH_WARMUP": "0"})
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.splitlines()[-1])
    for case, launched in report.items():
        assert isinstance(launched, list), f"{case}: {launched}"
        # no kernel: on the host, nothing to reduce, or (sparse unions) no entry in both operands here
        if "output controls" in case or "on the host" in case or case == "reduce empty" or \
                case.startswith("ewise_add") and "full" not in case:
            continue
        kernel = next(k for prefix, k in sorted(_DEVICE_KERNELS.items(), key=lambda item: -len(item[0]))
                      if (case + " ").startswith(prefix))
        assert any(name.startswith(f"gbgraph::{kernel}") for name in launched), (case, launched)
