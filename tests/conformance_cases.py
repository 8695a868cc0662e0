"""The case table of the conformance suite (tests/test_conformance.py): every protocol verb
over its operators, dtypes and mask/descriptor forms, with the small random operands each case
runs on.

A :class:`Case` names one call; :func:`operands` gives its inputs as numpy arrays (the test
module turns them into python-graphblas objects for the oracle and into backend objects for the
backend under test). ``docs/make_support_table.py`` groups the same table by verb, operator
family and dtype.

Operands are small (vectors of 6, matrices of 5 x 6) with absent entries, and values chosen so
that the oracle and a backend must agree exactly: integers in [-3, 3] (unsigned: [0, 5]), zeros
included (``div`` by zero follows GraphBLAS' integer rules), floats in multiples of 1/2 in
[-2, 2], so that sums and products of a few of them are exact in any order.
"""

import dataclasses
import zlib

import numpy as np

from gbgraph.backends.base import (BINARY_OPS, DTYPES, INDEX_UNARY_OPS, MONOIDS, POSITIONAL_SEMIRINGS,
                                   SELECT_OPS, SEMIRINGS, UNARY_OPS)

__all__ = ["Case", "CASES", "operands", "family", "MASK_FORMS", "OUT_FORMS"]

#: Masks without an output object: (form, structure, complement).
MASK_FORMS = ("S", "V", "~S", "~V")
#: Forms writing into an existing object: ``out`` alone, under a mask, with ``accum`` and
#: ``replace``; "accum" without "out" is a bad argument (ValueError).
OUT_FORMS = ("out", "out,S", "out,~V", "out,S,replace", "out,~S,accum", "out,V,accum,replace", "accum")
#: Operators the masked and descriptor forms run over (every dtype); the plain form runs
#: over every operator.
FORM_SEMIRINGS = ("plus_times", "min_plus", "max_second", "any_pair", "lor_land", "min_secondi")
FORM_BINARY = ("plus", "min", "first", "eq")
#: Operand dtypes of the mixed-type cases (typecasting and result-type unification).
MIXED = (("int32", "float64"), ("bool", "int64"), ("uint32", "int32"), ("uint64", "int64"),
         ("float32", "int64"), ("int64", "float32"))
#: Bound scalars of apply: a Python int, a Python float, a Python bool and a numpy scalar of
#: the operand's dtype.
SCALARS = ("int", "float", "bool", "np")

@dataclasses.dataclass(frozen=True)
class Case:
    """One call of a protocol verb.

    Attributes
    ----------
    verb : str
        The :class:`~gbgraph.backends.base.Backend` method.
    op : str
        Its operator (semiring, binary or unary op, monoid, select or index-unary op, the
        ``dup`` op of a build), ``"-"`` for verbs without one.
    dtype : str
        dtype of the first operand (and of the others unless ``dtype2``).
    kind : {"vector", "matrix"}
        What the verb's main operand is.
    form : str
        Comma-separated controls: ``S``, ``V``, ``~S``, ``~V`` (mask), ``out``, ``accum``,
        ``replace``, ``T`` (``transpose``), ``Ta``/``Tb`` (``transpose_a``/``_b``),
        ``pattern`` (an iso boolean matrix), ``left=<scalar>``/``right=<scalar>``,
        ``thunk=<n>``, and the verb-specific ``gather``, ``rows``, ``rows,cols``,
        ``scalar``; ``plain`` for none.
    dtype2 : str or None
        dtype of the second operand when it differs.
    """

    verb: str
    op: str
    dtype: str
    kind: str = "vector"
    form: str = "plain"
    dtype2: str | None = None

    @property
    def id(self):
        types = self.dtype if self.dtype2 is None else f"{self.dtype}+{self.dtype2}"
        return f"{self.verb}-{self.op}-{types}-{self.kind}-{self.form}"

    @property
    def flags(self):
        """The form's controls as a dict: ``{"S": True, "thunk": "1", ...}``."""
        flags = {}
        for part in self.form.split(","):
            key, _, value = part.partition("=")
            flags[key] = value or True
        return flags

    @property
    def bad_arguments(self):
        """Whether the case is an invalid call the backend must refuse with ValueError."""
        flags = self.flags
        accum_without_out = "accum" in flags and "out" not in flags and self.verb != "assign"
        duplicates_without_dup = self.verb.startswith("build") and self.op == "none" and "unique" not in flags
        return accum_without_out or duplicates_without_dup


def family(case):
    """The operator family a case belongs to in the support table."""
    op = case.op
    if case.verb in ("mxv", "vxm", "mxm"):
        if op in POSITIONAL_SEMIRINGS:
            return "positional"
        monoid, _, multiply = op.partition("_")
        return f"{monoid}_{_binary_family(multiply)}"
    if op in BINARY_OPS:
        return _binary_family(op)
    return op


def _binary_family(op):
    for name, members in (("arithmetic", ("plus", "minus", "rminus", "times", "div", "min", "max")),
                          ("comparison", ("eq", "ne", "lt", "gt", "le", "ge")),
                          ("logical", ("land", "lor", "lxor")), ("bitwise", ("band", "bor", "bxor"))):
        if op in members:
            return name
    return op  # first, second, pair


def _cases():
    cases = []
    products = {"mxv": "vector", "vxm": "vector", "mxm": "matrix"}
    for verb, kind in products.items():
        descriptors = {"mxv": ("T",), "vxm": ("T",), "mxm": ("Ta", "Tb", "Ta,Tb")}[verb]
        cases += [Case(verb, op, dtype, kind) for op in SEMIRINGS for dtype in DTYPES]
        cases += [Case(verb, op, "bool", kind, "pattern") for op in SEMIRINGS]
        cases += [Case(verb, op, dtype, kind, form) for op in FORM_SEMIRINGS for dtype in DTYPES
                  for form in MASK_FORMS + OUT_FORMS + descriptors]
        cases += [Case(verb, op, a, kind, dtype2=b) for op in ("plus_times", "min_plus", "any_second")
                  for a, b in MIXED]
    for verb in ("ewise_add", "ewise_mult"):
        for kind in ("vector", "matrix"):
            cases += [Case(verb, op, dtype, kind) for op in BINARY_OPS for dtype in DTYPES]
            cases += [Case(verb, op, dtype, kind, form) for op in FORM_BINARY for dtype in DTYPES
                      for form in MASK_FORMS + OUT_FORMS]
            cases += [Case(verb, op, a, kind, dtype2=b) for op in ("plus", "div", "lt", "first", "land")
                      for a, b in MIXED]
    for kind in ("vector", "matrix"):
        cases += [Case("apply", op, dtype, kind) for op in UNARY_OPS for dtype in DTYPES]
        cases += [Case("apply", "ainv", dtype, kind, form) for dtype in DTYPES for form in MASK_FORMS + OUT_FORMS]
        cases += [Case("apply", op, dtype, kind, f"{side}={scalar}") for op in BINARY_OPS for dtype in DTYPES
                  for side in ("left", "right") for scalar in (SCALARS if kind == "vector" else ("int", "float"))]
        cases += [Case("apply", "div", dtype, kind, f"left=float,{form}") for dtype in DTYPES
                  for form in ("S", "out,S,accum")]
        cases += [Case("apply_index", op, dtype, kind, f"thunk={t}") for op in INDEX_UNARY_OPS for dtype in DTYPES
                  for t in (0, 2) if kind == "matrix" or op == "rowindex"]
        cases += [Case("apply_index", "rowindex", dtype, kind, f"thunk=1,{form}") for dtype in DTYPES
                  for form in ("S", "~V", "out,S,accum")]
        for op in SELECT_OPS:
            if kind == "vector" and op in ("offdiag", "diag", "tril", "triu", "colle", "colgt"):
                continue
            thunks = ("0", "1", "0.5", "-2") if op.startswith("value") else ("0", "2", "-1")
            cases += [Case("select", op, dtype, kind, f"thunk={t}") for dtype in DTYPES for t in thunks]
        cases += [Case("select", "valuegt", dtype, kind, f"thunk=0,{form}") for dtype in DTYPES
                  for form in MASK_FORMS + OUT_FORMS]
        cases += [Case("reduce", op, dtype, kind) for op in MONOIDS for dtype in DTYPES]
        cases += [Case("reduce", "plus", dtype, kind, "empty") for dtype in DTYPES]
        cases += [Case("assign", "-", dtype, kind, form) for dtype in DTYPES
                  for form in ("S", "~S", "V", "S,accum", "V,replace", "~S,accum,replace",
                               "scalar,S", "scalar,~V", "scalar,S,accum", "scalar,V,replace")]
        cases += [Case("assign", "-", a, kind, "S", dtype2=b) for a, b in MIXED]
        cases += [Case("extract_tuples", "-", dtype, kind) for dtype in DTYPES]
    for verb in ("reduce_rows", "reduce_cols"):
        cases += [Case(verb, op, dtype, "matrix") for op in MONOIDS for dtype in DTYPES]
        cases += [Case(verb, op, dtype, "matrix", form) for op in ("plus", "min") for dtype in DTYPES
                  for form in MASK_FORMS + OUT_FORMS]
    cases += [Case("transpose", "-", dtype, "matrix", form) for dtype in DTYPES
              for form in ("plain", "S", "~V", "out,S,accum", "out,V,replace")]
    cases += [Case("extract", "-", dtype, "vector", "gather") for dtype in DTYPES]
    cases += [Case("extract", "-", dtype, "matrix", form) for dtype in DTYPES
              for form in ("rows", "rows,cols", "rows,cols=all")]
    dups = ("none", "plus", "min", "max", "first", "second", "times", "lor", "land")
    for verb, kind in (("build", "vector"), ("build_matrix", "matrix")):
        cases += [Case(verb, op, dtype, kind) for op in dups for dtype in DTYPES]
        cases += [Case(verb, "none", dtype, kind, "unique") for dtype in DTYPES]
    return tuple(cases)


#: Every case, in a fixed order.
CASES = _cases()


# ---- operands --------------------------------------------------------------------------------

NROWS, NCOLS, NINNER = 5, 6, 4


def _values(rng, dtype, count):
    if dtype == "bool":
        return rng.random(count) < 0.5
    if dtype.startswith("uint"):
        return rng.integers(0, 6, count).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-3, 4, count).astype(dtype)
    return (rng.integers(-4, 5, count) / 2).astype(dtype)


def _vector(rng, dtype, size, density=0.7):
    indices = np.flatnonzero(rng.random(size) < density).astype(np.int64)
    return ("vector", indices, _values(rng, dtype, indices.size), size)


def _matrix(rng, dtype, nrows, ncols, density=0.5):
    rows, cols = np.nonzero(rng.random((nrows, ncols)) < density)
    return ("matrix", rows.astype(np.int64), cols.astype(np.int64), _values(rng, dtype, rows.size), nrows, ncols)


def _like(rng, dtype, kind, shape, density=0.6):
    return _vector(rng, dtype, shape[0], density) if kind == "vector" else _matrix(rng, dtype, *shape, density)


_MATRIX_OPERAND = {"mxv": "x", "vxm": "y", "mxm": "x"}


def operands(case):
    """The inputs of ``case`` as numpy arrays, the same at every call.

    Returns
    -------
    dict
        ``"x"``, ``"y"`` (operands), ``"mask"`` (bool, some entries false) and ``"out"`` (an
        existing output; the test module casts it to the result's dtype), each
        ``("vector", indices, values, size)`` or ``("matrix", rows, cols, values, nrows,
        ncols)``; ``"out_shape"`` the result's shape; and verb-specific entries
        (``"indices"``, ``"rows"``, ``"cols"``, ``"tuples"``).
    """
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    flags, dtype2 = case.flags, case.dtype2 or case.dtype
    T = "T" in flags
    out_kind, out_shape, ops = case.kind, (NROWS, NCOLS), {}
    if case.verb == "mxv":
        ops["x"] = _matrix(rng, case.dtype, NROWS, NCOLS)
        ops["y"] = _vector(rng, dtype2, NROWS if T else NCOLS)
        out_shape = ((NCOLS if T else NROWS),)
    elif case.verb == "vxm":
        ops["x"] = _vector(rng, case.dtype, NCOLS if T else NROWS)
        ops["y"] = _matrix(rng, dtype2, NROWS, NCOLS)
        out_shape = ((NROWS if T else NCOLS),)
    elif case.verb == "mxm":
        ops["x"] = _matrix(rng, case.dtype, *((NINNER, NROWS) if "Ta" in flags else (NROWS, NINNER)))
        ops["y"] = _matrix(rng, dtype2, *((NCOLS, NINNER) if "Tb" in flags else (NINNER, NCOLS)))
    elif case.verb in ("ewise_add", "ewise_mult", "assign"):
        shape = (NCOLS,) if case.kind == "vector" else (NROWS, NCOLS)
        ops["x"] = _like(rng, case.dtype, case.kind, shape)
        ops["y"] = _like(rng, dtype2, case.kind, shape)
        out_shape = shape
    elif case.verb in ("reduce_rows", "reduce_cols"):
        ops["x"] = _matrix(rng, case.dtype, NROWS, NCOLS)
        out_kind, out_shape = "vector", ((NROWS if case.verb == "reduce_rows" else NCOLS),)
    elif case.verb == "transpose":
        ops["x"] = _matrix(rng, case.dtype, NROWS, NCOLS)
        out_shape = (NCOLS, NROWS)
    elif case.verb in ("build", "build_matrix"):
        count = 9
        size = NCOLS if case.verb == "build" else NROWS
        rows = (rng.permutation(size)[:count] if "unique" in flags else rng.integers(0, size, count)).astype(np.int64)
        cols = rng.integers(0, NCOLS, rows.size).astype(np.int64)
        if "unique" in flags and case.verb == "build_matrix":
            cols = np.zeros(rows.size, np.int64)
        elif case.verb == "build_matrix":  # at least one duplicate position
            rows[-1], cols[-1] = rows[0], cols[0]
        ops["tuples"] = (rows, cols, _values(rng, case.dtype, rows.size))
        out_shape = (NCOLS,) if case.verb == "build" else (NROWS, NCOLS)
    else:  # apply, apply_index, select, reduce, extract, extract_tuples
        shape = (NCOLS,) if case.kind == "vector" else (NROWS, NCOLS)
        ops["x"] = _like(rng, case.dtype, case.kind, shape, 0.0 if "empty" in flags else 0.6)
        out_shape = shape
        if case.verb == "extract":
            ops["indices"] = np.array([3, 0, 3, 5] if case.kind == "vector" else [4, 0, 0, 2], np.int64)
            ops["cols"] = np.array([5, 2, 2, 0], np.int64)
            out_shape = (4,) if case.kind == "vector" else (4, 4 if flags.get("cols") is True else NCOLS)
    if "pattern" in flags:  # an iso matrix: every value true
        ops[_MATRIX_OPERAND[case.verb]] = ops[_MATRIX_OPERAND[case.verb]][:3] + (
            np.ones(ops[_MATRIX_OPERAND[case.verb]][3].size, bool),) + ops[_MATRIX_OPERAND[case.verb]][4:]
    if ("out" in flags or "accum" in flags) and case.verb != "assign":
        ops["out"] = _like(rng, "uint32", out_kind, out_shape, 0.5)  # cast to the result's dtype
    ops["mask"] = _like(rng, "bool", out_kind, out_shape, 0.7)
    ops["out_shape"] = out_shape
    return ops

