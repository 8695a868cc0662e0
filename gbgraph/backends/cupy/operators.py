"""User-defined operators on the GPU: kernels of ``kernels/operators.cu`` with the operator's
function translated to CUDA C++ (:mod:`gbgraph.backends.cuda_translate`).

Each launcher compiles (once per operator, argument dtypes and kernel; CuPy caches the
binary on disk) a translation unit holding ``operators.cu`` and the operator's functor, and
runs the kernel whose numba twin in :mod:`gbgraph.backends.numba.operators` computes the same
values in the same order. Result dtypes are numba's typing of the operator, as on every
backend. Arrays are CuPy arrays; entry counts may stay on the device (``count_ptr``).
"""

import functools

import cupy
import numpy as np

from .. import operators as ops
from ..cuda_translate import array_type, c_name, scalar_type, translate_operator
from . import kernels

__all__ = ["result_dtype", "unary", "bound", "binary", "index_unary", "reduce", "reduce_rows", "semiring_rows",
           "row_operator", "DTYPES", "NAMED_MULTIPLIES"]

#: The dtypes the translated functions take and return.
DTYPES = frozenset(map(np.dtype, ("bool", "int32", "int64", "uint32", "uint64", "float32", "float64")))
_INDEX = np.dtype(np.int64)


def _c(dtype):
    return c_name(scalar_type(dtype))


def _dtype(numba_type):
    return np.dtype(bool) if str(numba_type) == "bool" else np.dtype(str(numba_type))


@functools.lru_cache(maxsize=None)
def _module(code, name, device):
    source = f'// gbgraph kernels {kernels.sources_digest(kernels.KERNEL_DIR)}\n#include "operators.cu"\n\n{code}'
    # no fused multiply-add: numba rounds a * b + c twice, and an FMA once (a few ulps apart)
    module = cupy.RawModule(code=source, options=("-std=c++17", "--fmad=false", f"-I{kernels.KERNEL_DIR}"),
                            name_expressions=(name,))
    return module.get_function(name)


def _kernel(code, name):
    """The kernel ``name`` of ``operators.cu`` instantiated after the generated ``code``."""
    return _module(code, name, cupy.cuda.runtime.getDevice())


def _grid(work):
    return (kernels._blocks(int(work)),), (kernels._THREADS,)


def _scalars(op, dtypes):
    return translate_operator(op, tuple(scalar_type(d) for d in dtypes))


def result_dtype(op, *dtypes):
    """numba's result dtype of the scalar operator ``op`` on arguments of ``dtypes``."""
    return _dtype(_scalars(op, dtypes).result)


def unary(op, x, count_ptr=None, count=None):
    """``op(x[k])`` for the first ``count`` (or ``*count_ptr``) values (numba's ``_gb_map``)."""
    t = _scalars(op, (x.dtype,))
    out = cupy.empty(x.size, _dtype(t.result))
    count = x.size if count is None else count
    if x.size:
        kernel = _kernel(t.code, f"gbgraph::map_unary<{t.entry}, {_c(x.dtype)}, {_c(out.dtype)}>")
        kernel(*_grid(x.size), (x, kernels._ptr(count_ptr), np.int64(count), out))
    return out


def bound(op, x, scalar, left, count_ptr=None, count=None):
    """``op(scalar, x[k])`` (``left``) or ``op(x[k], scalar)``; ``scalar`` a numpy scalar."""
    dtypes = (scalar.dtype, x.dtype) if left else (x.dtype, scalar.dtype)
    t = _scalars(op, dtypes)
    out = cupy.empty(x.size, _dtype(t.result))
    count = x.size if count is None else count
    if x.size:
        kernel = _kernel(t.code, f"gbgraph::map_bound<{t.entry}, {str(bool(left)).lower()}, {_c(scalar.dtype)}, "
                                 f"{_c(x.dtype)}, {_c(out.dtype)}>")
        kernel(*_grid(x.size), (x, scalar, kernels._ptr(count_ptr), np.int64(count), out))
    return out


def binary(op, x, y):
    """``op(x[k], y[k])`` of aligned arrays (a Monoid's operands already of its dtype)."""
    t = _scalars(op, (x.dtype, y.dtype))
    out = cupy.empty(x.size, _dtype(t.result))
    if x.size:
        kernel = _kernel(t.code, f"gbgraph::map_binary<{t.entry}, {_c(x.dtype)}, {_c(y.dtype)}, {_c(out.dtype)}>")
        kernel(*_grid(x.size), (x, y, np.int64(x.size), out))
    return out


def index_unary(op, x, x_dtype, rows, cols, thunk, count_ptr, count, capacity):
    """``op(x[k], i, j, thunk)`` with ``i = rows[k]`` (None: k), ``j = cols[k]`` (None: 0),
    for ``capacity`` slots of which ``count`` (or ``*count_ptr``) are entries; ``x`` None is
    a pattern's values (``x_dtype`` bool). ``thunk``: a numpy scalar or a tuple of dense
    CuPy arrays (numba's ``_gb_index``)."""
    if isinstance(thunk, tuple):
        rest = tuple(array_type(a.dtype) for a in thunk)
        types, extra = ", ".join(f"const {_c(a.dtype)}*" for a in thunk), thunk
    else:
        rest = (scalar_type(thunk.dtype),)
        types, extra = _c(thunk.dtype), (thunk,)
    index = scalar_type(_INDEX)
    t = translate_operator(op, (scalar_type(x_dtype), index, index) + rest)
    out = cupy.empty(capacity, _dtype(t.result))
    if capacity:
        column = "long long" if cols is None else _c(cols.dtype)
        kernel = _kernel(t.code, f"gbgraph::index_unary<{t.entry}, {_c(x_dtype)}, {_c(out.dtype)}, {column}, "
                                 f"{types}>")
        kernel(*_grid(capacity), (kernels._ptr(x), kernels._ptr(rows), kernels._ptr(cols), kernels._ptr(count_ptr),
                                  np.int64(count), out) + extra)
    return out


def _monoid(monoid):
    return _scalars(monoid, (monoid.dtype, monoid.dtype))


def reduce(monoid, x):
    """``identity ⊕ x[0] ⊕ x[1] ⊕ ...`` in order (``x`` of the monoid's dtype, nonempty):
    integers in chunks of consecutive values, floats in one sequence (numba's ``_gb_reduce``)."""
    t = _monoid(monoid)
    n = x.size
    chunks = 1 if monoid.dtype.kind == "f" else max(1, min(-(-n // 64), 8192))
    chunk = -(-n // chunks)
    kernel = _kernel(t.code, f"gbgraph::reduce_chunks<{t.entry}, {_c(monoid.dtype)}>")
    partial = cupy.empty(chunks, monoid.dtype)
    kernel(*_grid(chunks), (x, kernels._NULL, np.int64(n), np.int64(chunk), monoid.identity, partial, np.int64(chunks)))
    if chunks > 1:
        total = cupy.empty(1, monoid.dtype)
        kernel((1,), (1,), (partial, kernels._NULL, np.int64(chunks), np.int64(chunks), monoid.identity, total,
                            np.int64(1)))
        partial = total
    return monoid.dtype.type(partial.get()[0])


def reduce_rows(monoid, indptr, x, rows):
    """``x[indptr[r]] ⊕ ... ⊕ x[indptr[r + 1] - 1]`` for each nonempty row ``r`` of ``rows``
    (numba's ``_gb_reduce_rows``)."""
    t = _monoid(monoid)
    out = cupy.empty(rows.size, monoid.dtype)
    if rows.size:
        kernel = _kernel(t.code, f"gbgraph::reduce_rows<{t.entry}, {_c(monoid.dtype)}>")
        kernel(*_grid(rows.size), (indptr, x, rows, np.int64(rows.size), out))
    return out


#: A named multiply of a user semiring, as numba's ``_NAMED_BINARY``: the operand (or 1) in
#: the type ``T`` (the operands' promoted type, int64 for ``pair``).
_NAMED = {"first": "x", "second": "y", "pair": "1"}
#: The named multiplies a user semiring runs with on the device (others: the host's).
NAMED_MULTIPLIES = tuple(_NAMED)


def _multiply(semiring, a, b):
    """(C++ functor code, its name) of the semiring's multiply on dtypes ``a`` and ``b``."""
    multiply = semiring.multiply
    if isinstance(multiply, ops.BinaryOp):
        t = _scalars(multiply, (a, b))
        return t.code, t.entry
    t_in = _INDEX if multiply == "pair" else np.promote_types(a, b)
    name = f"gbgraph_named_{multiply}_{np.dtype(a).name}_{np.dtype(b).name}"
    return (f"struct {name} {{\n    static __device__ __forceinline__ {_c(t_in)} call({_c(a)} x, {_c(b)} y) "
            f"{{ return ({_c(t_in)})({_NAMED[multiply]}); }}\n}};\n", name)


def semiring_rows(semiring, A, u, present, rows, count_ptr, count, capacity, swap):
    """(values, found) of ``w(r) = ⊕_j mul(A(r, j), u(j))`` (``swap``: ``mul(u(j), A(r, j))``)
    for the listed rows (``rows`` None: all), ``u`` dense with presence bytes ``present``
    (None: full); numba's ``_gb_pull``. The monoid is a :class:`Monoid`; the multiply a
    :class:`BinaryOp` or ``first``, ``second``, ``pair``."""
    monoid = semiring.monoid
    a_dtype = A.dtype
    add = _monoid(monoid)
    mul_code, mul = _multiply(semiring, *((u.dtype, a_dtype) if swap else (a_dtype, u.dtype)))
    # the multiply apart: it may be the monoid's function, or share its helpers
    code = f"{add.code}\nnamespace gbgraph_multiply {{\n{mul_code}}}\n"
    mul = f"gbgraph_multiply::{mul}"
    out = cupy.empty(capacity, monoid.dtype)
    found = cupy.empty(capacity, cupy.uint8)
    if capacity:
        kernel = _kernel(code, f"gbgraph::semiring_rows<{add.entry}, {mul}, {str(bool(swap)).lower()}, "
                               f"{_c(monoid.dtype)}, {_c(a_dtype)}, {_c(u.dtype)}, {_c(A.indices.dtype)}>")
        kernel(*_grid(capacity), (kernels._ptr(rows), kernels._ptr(count_ptr), np.int64(count), A.indptr, A.indices,
                                  kernels._ptr(A.values), u, kernels._ptr(present), monoid.identity, out, found))
    return out, found


def _row_translation(op, A, vectors):
    key = (op, A.dtype, A.values is None, A.indices.dtype) + tuple(v.dtype for v in vectors)
    translation = _ROW_TRANSLATIONS.get(key)
    if translation is None:  # numba's types are made and the source translated once per operator and dtypes
        translation = _ROW_TRANSLATIONS[key] = _translate_rows(op, A, vectors)
    return translation


_ROW_TRANSLATIONS = {}


def _translate_rows(op, A, vectors):
    index = scalar_type(_INDEX)
    argtypes = (index, index, index, array_type(_INDEX), array_type(A.dtype))
    argtypes += tuple(array_type(v.dtype) for v in vectors)
    return translate_operator(op, argtypes, pattern=("vals",) if A.values is None else (),
                              storage={"cols": A.indices.dtype})


#: The named push monoids as C++ on ``x`` and ``y`` of the first vector's type ``T``
#: (numba's ``_NAMED_BINARY``: min and max are fmin and fmax).
_PUSH = {"plus": "x + y", "times": "x * y", "min": "{min}", "max": "{max}", "lor": "(x != 0) || (y != 0)",
         "land": "(x != 0) && (y != 0)", "lxor": "(x != 0) != (y != 0)", "bor": "x | y", "band": "x & y",
         "bxor": "x ^ y"}


def _push_functor(push, dtype):
    """(C++ code, functor name) of ``T call(T x, T y)``, the push monoid on the first
    vector's dtype (a :class:`Monoid`: its function on operands cast to its dtype)."""
    dtype = np.dtype(dtype)
    t = _c(dtype)
    if isinstance(push, ops.Monoid):
        m = _monoid(push)
        name = f"gbgraph_push_{c_name(scalar_type(push.dtype)).replace(' ', '_')}_{t.replace(' ', '_')}"
        body = f"gbgraph_push_monoid::{m.entry}::call(({_c(push.dtype)})x, ({_c(push.dtype)})y)"
        code = f"namespace gbgraph_push_monoid {{\n{m.code}}}\n"
    else:
        if push in ("bor", "band", "bxor") and dtype.kind not in "iu" or push in ("plus", "times") and dtype == bool:
            raise ops.TypingError(f"push={push!r} on {dtype} is not defined")
        name = f"gbgraph_push_{push}_{dtype.name}"
        floating = dtype.kind == "f"
        body = _PUSH[push].format(min="fmin(x, y)" if floating else "(y < x ? y : x)",
                                  max="fmax(x, y)" if floating else "(x < y ? y : x)")
        code = ""
    return code + f"struct {name} {{\n    static __device__ __forceinline__ {t} call({t} x, {t} y) " \
                  f"{{ return ({t})({body}); }}\n}};\n", name


def row_operator(op, A, vectors, rows, count_ptr, count, capacity, sequence=None, push=None):
    """(values, found) of ``op(r, indptr[r], indptr[r + 1], cols, vals, *vectors)`` for the
    listed rows (``rows`` None: all). With ``sequence`` (positions of ``rows`` by decreasing
    order), one thread runs them in that sequence and writes each present value into
    ``vectors[0]`` (a copy) at ``r``, or with ``push`` (a monoid's name or a Monoid)
    combines it into ``vectors[0]`` at each column of the row (numba's ``_gb_rows``,
    ``_gb_rows_ordered`` and ``_gb_rows_pushed``).

    ``cols`` keep the matrix's index type; the translation reads them as int64, as numba
    types them."""
    t = _row_translation(op, A, vectors)
    out = cupy.empty(capacity, _dtype(t.result))
    found = cupy.empty(capacity, cupy.uint8)
    if not capacity:
        return out, found
    value = "bool" if A.values is None else _c(A.dtype)
    head = f"{t.entry}, {_c(out.dtype)}, {_c(A.indices.dtype)}, {value}"
    if sequence is None:
        types = "".join(f", const {_c(v.dtype)}*" for v in vectors)
        kernel = _kernel(t.code, f"gbgraph::row_operator<{head}{types}>")
        kernel(*_grid(capacity), (kernels._ptr(rows), kernels._ptr(count_ptr), np.int64(count), A.indptr, A.indices,
                                  kernels._ptr(A.values), out, found) + tuple(vectors))
    else:
        types = "".join(f", const {_c(v.dtype)}*" for v in vectors[1:])
        code, write = "", "gbgraph::AtRow"
        if push is not None:
            code, functor = _push_functor(push, vectors[0].dtype)
            write = f"gbgraph::Pushed<{functor}>"
        kernel = _kernel(f"{t.code}\n{code}", f"gbgraph::row_operator_ordered<{t.entry}, {write}, {_c(out.dtype)}, "
                                             f"{_c(A.indices.dtype)}, {value}, {_c(vectors[0].dtype)}{types}>")
        kernel((1,), (1,), (rows, sequence, np.int64(sequence.size), A.indptr, A.indices, kernels._ptr(A.values), out,
                            found) + tuple(vectors))
    return out, found

