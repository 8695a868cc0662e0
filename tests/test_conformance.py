"""Conformance of every backend to python-graphblas on SuiteSparse, the oracle (issue 36).

Each case of :mod:`conformance_cases` (verb x operator x dtype x mask/descriptor form) runs
twice: through python-graphblas directly (the oracle, written here against ``graphblas``, not
through gbgraph's suitesparse backend), and through the backend under test. They must agree in
the structure (nvals, indices), the values and the dtype of the result.

* Values are compared exactly (integers, bools, and floats: the operands are small multiples
  of 1/2, so sums and products are exact in any order), except a float result reduced with the
  ``plus`` or ``times`` monoid over an inexact multiply (``div``, ``minv``): there the order of
  the terms is the backend's, and values agree within 1e-12 (float64) or 1e-5 (float32)
  relative. NaN equals NaN.
* The ``any`` monoid keeps one of its candidates: each value must be one of the products it
  could have kept (computed by the oracle one term at a time).
* A value select (``valueeq`` ...) is the comparison op applied with the bound thunk, used
  as a value mask: python-graphblas' own select misreads a thunk of another type than the
  vector (see :func:`oracle_expr`).
* Where the oracle raises (no typed operator, e.g. ``plus`` on bool), the backend must raise
  ``NotImplementedError`` naming itself; a bad argument (``accum`` without ``out``, duplicates
  without ``dup``) must raise ``ValueError``. A backend may also raise ``NotImplementedError``
  for a case the oracle runs: the case is skipped and counted as unsupported in
  docs/protocol_support.md.

Run one backend with ``-k suitesparse`` (or ``numba``, ``cupy``, ``mpi``); the ``mpi`` backend
runs on one rank in a plain pytest run, and on several under ``mpiexec -n 2 python -m pytest
tests/test_conformance.py -k mpi`` (tests/test_mpi_launch.py starts it on 2 and 3 ranks), each
rank comparing the whole result, which every rank holds, with the oracle.
"""

import functools
import importlib.util
import pathlib
import zlib

import numpy as np
import pytest
import graphblas as gb
from graphblas.core.operator import Semiring

import gbgraph as gg
import conformance_cases
from conformance_cases import CASES, operands
from conftest import gpu_available

# ---- the oracle: python-graphblas -------------------------------------------------------

#: Protocol names python-graphblas spells differently: GrB_DIV is ``cdiv`` there (C
#: division for integers, IEEE division for floats).
GB_NAMES = {"div": "cdiv"}
MASKS = {"S": (True, False), "V": (False, False), "~S": (True, True), "~V": (False, True)}


def gb_binary(name):
    return getattr(gb.binary, GB_NAMES.get(name, name))


@functools.cache
def gb_semiring(name):
    """The python-graphblas semiring ``name``, or the one its monoid and multiply make."""
    if name.endswith(("secondi", "firsti", "firstj", "secondj")):
        return getattr(gb.semiring.ss, name)
    monoid, _, multiply = name.partition("_")
    gb_name = f"{monoid}_{GB_NAMES.get(multiply, multiply)}"
    if hasattr(gb.semiring, gb_name):
        return getattr(gb.semiring, gb_name)
    return Semiring.register_anonymous(getattr(gb.monoid, monoid), gb_binary(multiply), name=gb_name)


def to_gb(spec, dtype=None):
    if spec[0] == "vector":
        _, indices, values, size = spec
        return gb.Vector.from_coo(indices, values, size=size, dtype=dtype or values.dtype)
    _, rows, cols, values, nrows, ncols = spec
    return gb.Matrix.from_coo(rows, cols, values, nrows=nrows, ncols=ncols, dtype=dtype or values.dtype)


def scalar(text, dtype):
    """The bound scalar a form names: a Python int, float or bool, or a numpy scalar."""
    return {"int": 2, "float": 0.85, "bool": True, "np": np.array(3, dtype)[()]}[text]


def thunk_value(text):
    return float(text) if "." in text else int(text)


def oracle_expr(case, ops, x, y):
    """The python-graphblas expression of ``case`` (before its output controls)."""
    verb, op, flags = case.verb, case.op, case.flags
    if verb == "mxv":
        return (x.T if "T" in flags else x).mxv(y, gb_semiring(op))
    if verb == "vxm":
        return x.vxm(y.T if "T" in flags else y, gb_semiring(op))
    if verb == "mxm":
        return (x.T if "Ta" in flags else x).mxm(y.T if "Tb" in flags else y, gb_semiring(op))
    if verb == "ewise_add":
        return x.ewise_add(y, gb_binary(op))
    if verb == "ewise_mult":
        return x.ewise_mult(y, gb_binary(op))
    if verb == "apply":
        if "left" in flags:
            return x.apply(gb_binary(op), left=scalar(flags["left"], case.dtype))
        if "right" in flags:
            return x.apply(gb_binary(op), right=scalar(flags["right"], case.dtype))
        return x.apply(getattr(gb.unary, op))
    if verb == "apply_index":
        return x.apply(getattr(gb.indexunary, op), thunk_value(flags["thunk"]))
    if verb == "select":
        if op.startswith("value"):
            # u<op(u, thunk)>: python-graphblas 2025.2.0 on SuiteSparse 9.4.5 types the value
            # predicates by unifying u's and the thunk's types but then misreads a thunk of
            # another type (valueeq on float32 [1.0] against 1 keeps nothing), so the oracle
            # is the comparison itself, typed the same way, used as a value mask
            keep = x.apply(gb_binary(op.removeprefix("value")), right=thunk_value(flags["thunk"])).new()
            return x.select(keep.V)
        return x.select(getattr(gb.select, op), thunk_value(flags["thunk"]))
    if verb == "reduce_rows":
        return x.reduce_rowwise(getattr(gb.monoid, op))
    if verb == "reduce_cols":
        return x.reduce_columnwise(getattr(gb.monoid, op))
    if verb == "transpose":
        return x.T
    if verb == "extract":
        if case.kind == "vector":
            return x[ops["indices"]]
        return x[ops["indices"], ops["cols"] if flags.get("cols") is True else slice(None)]
    raise AssertionError(f"no oracle expression for {case.id}")


def oracle(case, ops):
    """Run ``case`` on python-graphblas: a vector, a matrix or a scalar (None: empty)."""
    flags = case.flags
    if case.bad_arguments:
        raise ValueError(case.id)
    if case.verb in ("build", "build_matrix"):
        rows, cols, values = ops["tuples"]
        dup = None if case.op == "none" else gb_binary(case.op)
        if case.verb == "build":
            return gb.Vector.from_coo(rows, values, size=ops["out_shape"][0], dup_op=dup)
        return gb.Matrix.from_coo(rows, cols, values, nrows=ops["out_shape"][0], ncols=ops["out_shape"][1], dup_op=dup)
    x = to_gb(ops["x"])
    if case.verb == "extract_tuples":
        return x
    if case.verb == "reduce":
        monoid = getattr(gb.monoid, case.op)
        return (x.reduce(monoid) if case.kind == "vector" else x.reduce_scalar(monoid)).new()
    mask = _oracle_mask(flags, ops)
    accum = gb_binary(_accum(case)) if "accum" in flags else None
    if case.verb == "assign":
        out = x
        value = to_gb(ops["y"]) if "scalar" not in flags else scalar("int", case.dtype)
        out(mask=mask, accum=accum, replace="replace" in flags) << value
        return out
    expr = oracle_expr(case, ops, x, to_gb(ops["y"]) if "y" in ops else None)
    if "out" not in flags:
        return expr.new(mask=mask)
    out = to_gb(ops["out"], expr.dtype)
    out(mask=mask, accum=accum, replace="replace" in flags) << expr
    return out


def _oracle_mask(flags, ops):
    for form, (structure, complement) in MASKS.items():
        if form in flags:
            m = to_gb(ops["mask"])
            m = m.S if structure else m.V
            return ~m if complement else m
    return None


def _accum(case):
    """The accumulator of the ``accum`` forms."""
    return "plus"


def _product_candidates(case, ops):
    """For a semiring over ``any``: each output position's possible values, the products of
    one term each (the oracle on operands holding one entry each, which keeps positional
    multiplies right)."""
    flags = case.flags
    inner_x = {"mxv": 1 if "T" not in flags else 0, "vxm": 0, "mxm": 1 if "Ta" not in flags else 0}[case.verb]
    inner_y = {"mxv": 0, "vxm": 0 if "T" not in flags else 1, "mxm": 0 if "Tb" not in flags else 1}[case.verb]
    candidates = {}
    for term_x in _single_entries(ops["x"]):
        for term_y in _single_entries(ops["y"]):
            if term_x[0][inner_x] != term_y[0][inner_y]:
                continue
            product = oracle_expr(case, ops, to_gb(term_x[1]), to_gb(term_y[1])).new()
            *position, value = (a[0] for a in product.to_coo())
            key = int(position[0]) if len(position) == 1 else tuple(int(p) for p in position)
            candidates.setdefault(key, []).append(value)
    return candidates


def _single_entries(spec):
    """``(position, spec)`` of each entry of ``spec``: the entry alone in an object of the
    same shape (a vector's position is ``(i,)``)."""
    if spec[0] == "vector":
        _, indices, values, size = spec
        return [((i,), ("vector", indices[k:k + 1], values[k:k + 1], size)) for k, i in enumerate(indices)]
    _, rows, cols, values, nrows, ncols = spec
    return [((i, j), ("matrix", rows[k:k + 1], cols[k:k + 1], values[k:k + 1], nrows, ncols))
            for k, (i, j) in enumerate(zip(rows, cols))]


# ---- the backend under test -------------------------------------------------------------

def _on_host(be, array):
    return array.get() if hasattr(array, "get") else np.asarray(array)


def to_backend(be, spec, dtype=None, *, pattern=False):
    xp = be.xp
    if spec[0] == "vector":
        _, indices, values, size = spec
        return be.vector(xp.asarray(indices), xp.asarray(values.astype(dtype or values.dtype)), size)
    _, rows, cols, values, nrows, ncols = spec
    indptr = np.zeros(nrows + 1, np.int64)
    np.add.at(indptr, rows + 1, 1)
    indptr = np.cumsum(indptr)
    values = None if pattern else xp.asarray(values.astype(dtype or values.dtype))
    return be.matrix(xp.asarray(indptr), xp.asarray(cols), ncols=ncols, values=values)


def controls(be, case, ops, out_dtype):
    """The keywords of ``case``'s form (only those it names, so that a backend without a
    control still runs the plain form)."""
    flags, kw = case.flags, {}
    for form, (structure, complement) in MASKS.items():
        if form in flags:
            kw["mask"] = to_backend(be, ops["mask"])
            if not structure:
                kw["structure"] = False
            if complement:
                kw["complement"] = True
    if "out" in flags:
        kw["out"] = to_backend(be, ops["out"], out_dtype)
    if "accum" in flags:
        kw["accum"] = _accum(case)
    if "replace" in flags:
        kw["replace"] = True
    return kw


def run(be, case, ops, out_dtype):
    """Run ``case`` on the backend ``be``: a vector, a matrix or a scalar (None: empty)."""
    verb, op, flags = case.verb, case.op, case.flags
    if verb in ("build", "build_matrix"):
        rows, cols, values = (be.xp.asarray(a) for a in ops["tuples"])
        dup = {} if op == "none" else {"dup": op}
        if verb == "build":
            return be.build(rows, values, ops["out_shape"][0], **dup)
        return be.build_matrix(rows, cols, values, *ops["out_shape"], **dup)
    pattern = "pattern" in flags
    x = to_backend(be, ops["x"], pattern=pattern and verb != "vxm")
    if verb == "extract_tuples":
        return be.extract_tuples(x)
    if verb == "reduce":
        return be.reduce(x, op)
    kw = controls(be, case, ops, out_dtype)
    if verb == "assign":
        kw.setdefault("mask", None)
        value = to_backend(be, ops["y"]) if "scalar" not in flags else scalar("int", case.dtype)
        return be.assign(x, value, **kw)
    y = to_backend(be, ops["y"], pattern=pattern and verb == "vxm") if "y" in ops else None
    if "T" in flags:
        kw["transpose"] = True
    if "Ta" in flags:
        kw["transpose_a"] = True
    if "Tb" in flags:
        kw["transpose_b"] = True
    if verb == "mxv":
        return be.mxv(op, x, y, **kw)
    if verb == "vxm":
        return be.vxm(op, x, y, **kw)
    if verb == "mxm":
        return be.mxm(op, x, y, **kw)
    if verb in ("ewise_add", "ewise_mult"):
        return getattr(be, verb)(op, x, y, **kw)
    if verb == "apply":
        for side in ("left", "right"):
            if side in flags:
                kw[side] = scalar(flags[side], case.dtype)
        return be.apply(op, x, **kw)
    if verb == "apply_index":
        return be.apply_index(op, x, thunk_value(flags["thunk"]), **kw)
    if verb == "select":
        return be.select(op, x, thunk_value(flags["thunk"]), **kw)
    if verb in ("reduce_rows", "reduce_cols"):
        return getattr(be, verb)(x, op, **kw)
    if verb == "transpose":
        return be.transpose(x, **kw)
    if verb == "extract":
        indices = be.xp.asarray(ops["indices"])
        if case.kind == "vector" or "cols" not in flags:
            return be.extract(x, indices)
        return be.extract(x, indices, be.xp.asarray(ops["cols"]) if flags["cols"] is True else None)
    raise AssertionError(f"no backend call for {case.id}")


# ---- comparison -------------------------------------------------------------------------

def oracle_tuples(result):
    """``(positions, values, dtype name)`` of a python-graphblas result."""
    if isinstance(result, gb.Scalar):
        dtype = np.dtype(result.dtype.np_type)
        return (), None if result.value is None else np.asarray(result.value, dtype), dtype.name
    if isinstance(result, gb.Vector):
        indices, values = result.to_coo()
        return (indices.astype(np.int64),), values, np.dtype(result.dtype.np_type).name
    rows, cols, values = result.to_coo()
    return (rows.astype(np.int64), cols.astype(np.int64)), values, np.dtype(result.dtype.np_type).name


def backend_tuples(be, case, result):
    """``(positions, values, dtype name)`` of a backend's result, read through the verbs every
    backend has had from the start (indices, values, to_csr)."""
    if case.verb == "reduce":
        return ((), None, None) if result is None else ((), np.asarray(result), np.asarray(result).dtype.name)
    if case.verb == "extract_tuples":
        *positions, values = (_on_host(be, a) for a in result)
        assert all(p.dtype == np.int64 for p in positions), "extract_tuples: indices must be int64"
        return tuple(positions), values, values.dtype.name
    if case.kind == "vector" or case.verb in ("reduce_rows", "reduce_cols"):
        values = _on_host(be, be.values(result))
        return (_on_host(be, be.indices(result)).astype(np.int64),), values, values.dtype.name
    indptr, cols, values = (_on_host(be, a) for a in be.to_csr(result))
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    return (rows.astype(np.int64), cols.astype(np.int64)), values, values.dtype.name


def _tolerance(case, dtype):
    monoid = case.op.partition("_")[0] if case.verb in ("mxv", "vxm", "mxm") else case.op
    inexact = case.verb in ("mxv", "vxm", "mxm") and case.op.endswith("_div") or case.verb in (
        "reduce", "reduce_rows", "reduce_cols")
    if dtype in ("float32", "float64") and monoid in ("plus", "times") and inexact:
        return 1e-5 if dtype == "float32" else 1e-12
    return 0


def compare(case, ops, expected, actual):
    positions, values, dtype = expected
    got_positions, got_values, got_dtype = actual
    if case.verb == "reduce":
        assert (values is None) == (got_values is None), f"reduce: expected {values}, got {got_values}"
        if values is None:
            return
    assert got_dtype == dtype, f"dtype: expected {dtype}, got {got_dtype}"
    for p, q in zip(positions, got_positions):
        np.testing.assert_array_equal(q, p, err_msg="structure differs")
    if case.op.startswith("any") and not case.op.endswith("_pair") and case.verb in (
            "mxv", "vxm", "mxm", "reduce", "reduce_rows", "reduce_cols"):
        return _check_any(case, ops, positions, got_values)
    rtol = _tolerance(case, dtype)
    if rtol:
        np.testing.assert_allclose(got_values, values, rtol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_values, values)


def _check_any(case, ops, positions, got):
    if case.verb in ("reduce", "reduce_rows", "reduce_cols"):
        x = to_gb(ops["x"])
        if case.verb == "reduce":
            assert got in x.to_coo()[-1], f"any: {got} is none of the entries"
            return
        rows, cols, values = x.to_coo()
        keys = rows if case.verb == "reduce_rows" else cols
        candidates = {k: values[keys == k] for k in np.unique(keys)}
        keys = positions[0]
    else:
        candidates = _product_candidates(case, ops)
        keys = positions[0] if len(positions) == 1 else list(zip(*positions))
    for key, value in zip(keys, got):
        key = tuple(int(k) for k in key) if isinstance(key, tuple) else int(key)
        options = np.asarray(candidates[key])
        assert np.any((options == value) | (np.isnan(options) & np.isnan(value)) if options.dtype.kind == "f"
                      else options == value), f"any: {value} at {key} is none of {options}"


# ---- the test ---------------------------------------------------------------------------

BACKENDS = {"suitesparse": [], "numba": [],
            "cupy": [pytest.mark.gpu, pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")],
            # one rank in-process; tests/test_mpi_launch.py runs these cases on 2 and 3 ranks
            "mpi": [pytest.mark.slow, pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None,
                                                         reason="needs mpi4py")]}


def _params():
    return list(_param_iter())


def _sample(cases):
    """The ids of the cases the default run takes: one case (a fixed choice by the case's name)
    of each verb x operator family x dtype x kind, and of each verb x form x kind. ``.ci/run``
    runs the rest of the table too, marked slow."""
    chosen = {}
    for case in cases:
        for group in (("family", case.verb, conformance_cases.family(case), case.dtype, case.kind),
                      ("form", case.verb, case.form, case.kind)):
            if group not in chosen or _key(case) < _key(chosen[group]):
                chosen[group] = case
    return {case.id for case in chosen.values()}


def _key(case):
    return zlib.crc32(case.id.encode())


SAMPLED = _sample(CASES)


def _param_iter():
    for name, marks in BACKENDS.items():
        for case in CASES:
            slow = [] if case.id in SAMPLED else [pytest.mark.slow]
            yield pytest.param(name, case, id=f"{name}-{case.id}", marks=[*marks, *slow])


class Unsupported(Exception):
    """The backend raised NotImplementedError where the oracle runs the case."""


def outcome(name, case):
    """Run ``case`` on the oracle and on the backend ``name`` and check they agree.

    Raises
    ------
    AssertionError
        when they differ.
    Unsupported
        when the backend raised NotImplementedError (naming itself) and the oracle did not.
    """
    be = gg.backend(name)
    ops = operands(case)
    try:
        expected = oracle(case, ops)
    except Exception as error:  # noqa: BLE001 (any failure of the oracle: the backend must refuse)
        expected_error = error
    else:
        expected_error = None
    out_dtype = None
    if expected_error is None and not isinstance(expected, gb.Scalar):
        out_dtype = expected.dtype.np_type
    try:
        result = run(be, case, ops, out_dtype)
    except (NotImplementedError, ValueError) as error:
        if case.bad_arguments:
            assert isinstance(error, ValueError), f"{case.id}: a bad argument must raise ValueError, got {error!r}"
            return
        assert be.name in str(error), f"{case.id}: the message does not name the backend: {error}"
        if expected_error is None:
            assert isinstance(error, NotImplementedError), (
                f"{case.id}: the oracle runs it, the backend raised {error!r}")
            raise Unsupported(str(error)) from error
        return
    assert expected_error is None, f"{case.id}: the oracle raised {expected_error!r}; the backend returned a result"
    compare(case, ops, oracle_tuples(expected), backend_tuples(be, case, result))


@pytest.mark.parametrize("name, case", _params())
def test_conformance(name, case):
    try:
        outcome(name, case)
    except Unsupported as unsupported:
        pytest.skip(f"NotImplementedError: {unsupported}")


@pytest.mark.slow
def test_support_table_suitesparse_is_up_to_date():
    """docs/protocol_support.md's suitesparse section is what the suite finds today (run
    ``python docs/make_support_table.py`` after changing the backend or the cases)."""
    path = pathlib.Path(__file__).resolve().parents[1] / "docs" / "make_support_table.py"
    spec = importlib.util.spec_from_file_location("make_support_table", path)
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    committed = table.sections(table.TABLE.read_text()).get("suitesparse")
    assert committed == table.section("suitesparse"), (
        "docs/protocol_support.md is stale: run docs/make_support_table.py")
