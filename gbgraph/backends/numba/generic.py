"""The numba backend's general verbs: GraphBLAS's typing and operators over numpy arrays.

The compiled kernels (``kernels/``) serve the verbs of gbgraph's algorithms: a handful of
semirings over the dtypes those algorithms use. Everything else the protocol lists, every
operator on every one of its dtypes, vectors and matrices alike, runs here in numpy, with the
types and values python-graphblas on SuiteSparse:GraphBLAS gives (the conformance suite checks
both against it):

==========================  =================================================================
operands                    type the operator runs in (python-graphblas' ``unify``)
==========================  =================================================================
two objects, or an object   ``numpy.promote_types`` of the two dtypes (int64 with uint64 is
and a bound scalar          float64, float32 with any 32/64-bit integer float64)
a Python scalar             bool, int64 or float64 (a numpy scalar keeps its dtype)
``pair`` (and ``*_pair``)   int64, whatever the operands
comparisons                 bool result
``lor``/``land``/``lxor``   monoids (and their named semirings with ``first``, ``second``,
                            ``pair`` or a logical multiply) run in bool
``bor``/``band``/``bxor``   monoids on unsigned types only; the named bitwise semirings take
                            signed integers as uint64
positional multiplies       int32 where the operands unify to int32, else int64
``accum``, a build's dup    the output's dtype (python-graphblas types them by it alone)
a value select's thunk      compared in the unified type, as a bound scalar
==========================  =================================================================

A semiring python-graphblas has no name for (``bor_second``, ``min_band``, ...) is typed as
its anonymous semiring is: the multiply in the unified type, and the monoid only where it has
an instance of exactly the multiply's result type. Where python-graphblas has no typed
operator (``plus`` on bool, bitwise operators on floats), the verb raises
``NotImplementedError`` naming the verb, the operator, the dtypes and the way out.

A matrix enters the element-wise verbs as the sorted keys ``i * ncols + j`` of its entries
(CSR order), so that vectors and matrices share one implementation.
"""

import numpy as np

__all__ = ["unify", "scalar_dtype", "cast", "binary_types", "binary", "unary", "monoid_type", "reduce_all",
           "reduce_segments", "semiring_types", "multiply", "unsupported"]

_BOOL = np.dtype(bool)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                "ge": np.greater_equal}
_LOGICAL = {"land": np.logical_and, "lor": np.logical_or, "lxor": np.logical_xor}
_BITWISE = {"band": np.bitwise_and, "bor": np.bitwise_or, "bxor": np.bitwise_xor}
_POSITIONAL = ("firsti", "firstj", "secondi", "secondj")
# bool instances of the arithmetic operators (SuiteSparse's GrB_PLUS_BOOL is lor, ...)
_ON_BOOL = {"plus": "lor", "times": "land", "min": "land", "max": "lor", "minus": "ne", "rminus": "ne"}
# the semirings python-graphblas names, by monoid: their multiplies
_NAMED = {m: ("first", "second", "pair", "plus", "minus", "rminus", "times", "div", "min", "max", "land", "lor",
              "lxor") for m in ("plus", "times", "min", "max")}
_NAMED["any"] = _NAMED["plus"] + tuple(_COMPARISONS)
_NAMED.update({m: ("first", "second", "pair", "land", "lor", "lxor") + tuple(_COMPARISONS)
               for m in ("lor", "land", "lxor")})
_NAMED.update({m: tuple(_BITWISE) for m in _BITWISE})
# named semirings that also have a bool instance
_NAMED_ON_BOOL = {m: ("first", "second") for m in ("times", "min", "max", "any")}
for _m in ("min", "max", "any"):
    _NAMED_ON_BOOL[_m] += ("land", "lor", "lxor")


def unsupported(verb, op, dtypes, hint=""):
    """The NotImplementedError of an operator without an instance for these dtypes."""
    names = ", ".join(str(np.dtype(d)) for d in dtypes)
    return NotImplementedError(f"numba: {verb} with {op} on {names} is not supported (python-graphblas has no "
                               f"such typed operator){'; ' + hint if hint else ''}")


def unify(a, b):
    """The dtype python-graphblas runs an operator on two operands of dtypes ``a`` and ``b`` in."""
    return np.promote_types(a, b)


def scalar_dtype(value):
    """The dtype python-graphblas gives a bound scalar: a numpy scalar's own, else bool,
    int64 or float64 for a Python bool, int or float."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.dtype
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):  # python-graphblas rejects those past int64; uint64 holds them
        return _INT64 if -2**63 <= value < 2**63 else _UINT64
    if isinstance(value, float):
        return np.dtype(np.float64)
    raise TypeError(f"a bound scalar must be a bool, int, float or numpy scalar, got {value!r}")


def cast(values, dtype, xp=np):
    """``values`` as ``dtype`` with GraphBLAS's typecast: a float becomes an integer by
    truncation, saturating at the type's bounds, NaN giving 0; anything nonzero is true.
    ``xp``: numpy, or CuPy for the cupy backend's arrays."""
    values = xp.asarray(values)
    dtype = np.dtype(dtype)
    if values.dtype == dtype:
        return values
    if values.dtype.kind == "f" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        with np.errstate(invalid="ignore"):
            clipped = xp.clip(xp.nan_to_num(values, nan=0.0), float(info.min), float(info.max))
            # float(max) rounds up past the bound: such values become the maximum itself
            return xp.where(clipped >= float(info.max), dtype.type(info.max), xp.trunc(clipped).astype(dtype))
    if dtype == _BOOL:
        return values != 0
    return values.astype(dtype)


# ---- binary and unary operators ---------------------------------------------------------

def binary_types(verb, op, a, b):
    """(input dtype, result dtype) of binary operator ``op`` on operands of dtypes ``a``, ``b``."""
    if op == "pair":
        return _INT64, _INT64
    t = unify(a, b)
    if op in _BITWISE and t.kind not in "iu":
        raise unsupported(verb, op, (a, b), "bitwise operators take integers")
    return t, (_BOOL if op in _COMPARISONS else t)


def binary(op, a, b, t):
    """``op(a, b)`` with both operands cast to ``t`` (arrays or scalars, broadcast)."""
    a, b = cast(a, t), cast(b, t)
    shape = np.broadcast(a, b).shape
    if op == "first":
        return np.broadcast_to(a, shape).copy()
    if op == "second":
        return np.broadcast_to(b, shape).copy()
    if op == "pair":
        return np.ones(shape, t)
    if op == "rminus":
        op, a, b = "minus", b, a
    if t == _BOOL:
        if op == "div":  # GrB_DIV_BOOL is first
            return np.broadcast_to(a, shape).copy()
        op = _ON_BOOL.get(op, op)
    if op in _COMPARISONS:
        return _COMPARISONS[op](a, b)
    if op in _LOGICAL:
        return _LOGICAL[op](a != 0, b != 0).astype(t)
    if op in _BITWISE:
        return _BITWISE[op](a, b)
    with np.errstate(all="ignore"):
        if op == "plus":
            return np.add(a, b, dtype=t)
        if op == "minus":
            return np.subtract(a, b, dtype=t)
        if op == "times":
            return np.multiply(a, b, dtype=t)
        if op == "min":
            return (np.fmin if t.kind == "f" else np.minimum)(a, b)
        if op == "max":
            return (np.fmax if t.kind == "f" else np.maximum)(a, b)
        if t.kind == "f":
            return np.true_divide(a, b, dtype=t)
    return _integer_divide(a, b, t)


def _integer_divide(a, b, t, xp=np):
    """GraphBLAS integer division: C's truncation, and x / 0 = 0 for x = 0, else the extreme
    of the sign of x (SuiteSparse's rule), never a trap; the minimum divided by -1 wraps.
    ``xp``: numpy, or CuPy for the cupy backend's arrays."""
    a, b = (xp.asarray(x, t) for x in xp.broadcast_arrays(a, b))
    zero = b == 0
    safe = xp.where(zero, 1, b).astype(t)
    if t.kind == "i":
        minus_one = safe == -1
        safe = xp.where(minus_one, 1, safe).astype(t)
        with np.errstate(all="ignore"):
            quotient = xp.where(minus_one, xp.negative(a), _truncated(a, safe, t))
    else:
        quotient = a // safe
    info = np.iinfo(t)
    # typed scalars: numpy >= 2.5 refuses a Python int beyond int64 (uint64's max) beside int64 arrays
    by_zero = xp.where(a > 0, t.type(info.max), xp.where(a < 0, t.type(info.min), t.type(0))).astype(t)
    return xp.where(zero, by_zero, quotient).astype(t)


def _truncated(a, b, t):
    quotient = a // b
    quotient += ((a % b != 0) & ((a < 0) != (b < 0))).astype(t)  # floor to truncation
    return quotient


def unary(op, x, xp=np):
    """Unary operator ``op`` on the values ``x``, in their own dtype; ``xp``: numpy, or CuPy
    for the cupy backend's arrays."""
    t = x.dtype
    if op == "identity":
        return x.copy()
    if op == "one":
        return xp.ones_like(x)
    if op == "lnot":
        return ~x if t == _BOOL else (x == 0).astype(t)
    if t == _BOOL:  # ainv and abs are the identity on bool, minv is true
        return xp.ones_like(x) if op == "minv" else x.copy()
    with np.errstate(all="ignore"):
        if op == "ainv":
            return xp.negative(x)
        if op == "abs":
            return x.copy() if t.kind == "u" else xp.abs(x)
        if t.kind == "f":
            return xp.true_divide(1, x).astype(t, copy=False)
    return _integer_divide(xp.ones_like(x), x, t, xp)


# ---- monoids ----------------------------------------------------------------------------

def monoid_type(verb, monoid, t, hint=""):
    """The dtype ``monoid`` reduces values of dtype ``t`` in (they are cast to it)."""
    t = np.dtype(t)
    if monoid in ("lor", "land", "lxor"):
        return _BOOL
    if monoid in ("bor", "band", "bxor") and t.kind != "u":
        raise unsupported(verb, monoid, (t,), "bitwise monoids take unsigned integers")
    if monoid == "plus" and t == _BOOL:
        raise unsupported(verb, monoid, (t,), hint or "cast to int64 with apply('one', ...) first, or use lor")
    return t


_UFUNCS = {"plus": np.add, "times": np.multiply, "min": np.minimum, "max": np.maximum, "lor": np.logical_or,
           "land": np.logical_and, "lxor": np.logical_xor, "bor": np.bitwise_or, "band": np.bitwise_and,
           "bxor": np.bitwise_xor}


def _ufunc(monoid, t):
    if t.kind == "f" and monoid in ("min", "max"):
        return np.fmin if monoid == "min" else np.fmax
    if t == _BOOL:
        return _UFUNCS[{"plus": "lor", "times": "land", "min": "land", "max": "lor"}.get(monoid, monoid)]
    return _UFUNCS[monoid]


def reduce_all(monoid, values):
    """``values`` (non-empty, already in the monoid's dtype) reduced to a numpy scalar."""
    t = values.dtype
    if monoid == "any":
        return values[0]
    with np.errstate(all="ignore"):
        if t.kind == "f" and monoid in ("plus", "times"):
            sums = (np.sum if monoid == "plus" else np.prod)(values)
            return np.asarray(sums, t)[()]
        return np.asarray(_ufunc(monoid, t).reduce(values, dtype=t), t)[()]


def reduce_segments(monoid, values, starts):
    """``values[starts[k]:starts[k + 1]]`` (the last to the end) reduced in order, for
    segments that are not empty; floating-point sums and products left to right."""
    t = values.dtype
    if monoid == "any":
        return values[starts]
    if t.kind == "f" and monoid in ("plus", "times"):
        return _fold_segments(monoid, values, starts)
    with np.errstate(all="ignore"):
        return _ufunc(monoid, t).reduceat(values, starts, dtype=t)


def _fold_segments(monoid, values, starts):
    """Floating-point sums or products of segments, each left to right (the order of the
    compiled kernels and of SuiteSparse's dot products); float64 runs the compiled
    ``segment_reduce``, float32, which no algorithm uses, one numpy pass per position in the
    longest segment rather than a kernel compiled for it."""
    from .kernels import products

    ends = np.append(starts[1:], values.size)
    out = values[starts].copy()
    if values.dtype == np.float64:
        products.segment_reduce(values, starts, ends, products.MONOIDS[monoid], out)
        return out
    lengths = ends - starts
    step = np.add if monoid == "plus" else np.multiply
    with np.errstate(all="ignore"):
        for offset in range(1, int(lengths.max(initial=1))):
            more = lengths > offset
            out[more] = step(out[more], values[starts[more] + offset])
    return out


# ---- semirings --------------------------------------------------------------------------

def semiring_types(verb, semiring, a, b):
    """(multiply's input dtype, its result dtype) of ``semiring`` on operands of dtypes
    ``a`` and ``b``; the monoid reduces in the result dtype."""
    monoid, mult = semiring.split("_", 1)
    a, b = np.dtype(a), np.dtype(b)
    if mult in _POSITIONAL:
        t = _INT32 if unify(a, b) == _INT32 else _INT64
        return t, t
    t = _INT64 if mult == "pair" else unify(a, b)
    named = mult in _NAMED.get(monoid, ())
    if named and monoid in ("lor", "land", "lxor"):
        return (t, _BOOL) if mult in _COMPARISONS else (_BOOL, _BOOL)
    if named and monoid in _BITWISE:
        if t.kind not in "iu":
            raise unsupported(verb, semiring, (a, b), "bitwise semirings take integers")
        return (_UINT64, _UINT64) if t.kind == "i" else (t, t)
    if named and t == _BOOL and mult not in _NAMED_ON_BOOL.get(monoid, ()) and mult not in _COMPARISONS:
        raise unsupported(verb, semiring, (a, b), "cast the pattern with apply('one', ...) to int64, or use "
                          "plus_pair, any_pair or a logical semiring")
    if mult in _BITWISE and t.kind not in "iu":
        raise unsupported(verb, semiring, (a, b), "bitwise multiplies take integers")
    result = _BOOL if mult in _COMPARISONS else t
    if named:
        return t, result
    # an anonymous semiring: the monoid needs an instance of exactly the multiply's type
    exact = {"plus": result != _BOOL, "lor": result == _BOOL, "land": result == _BOOL, "lxor": result == _BOOL,
             "bor": result.kind == "u", "band": result.kind == "u", "bxor": result.kind == "u"}.get(monoid, True)
    if not exact:
        raise unsupported(verb, semiring, (a, b), f"the monoid {monoid} has no {result} instance")
    return t, result


def multiply(mult, a, b, t, i, k, j):
    """The products ``a ⊗ b`` of entries A(i, k) and B(k, j) (aligned arrays) in dtype ``t``."""
    if mult in _POSITIONAL:
        return np.asarray({"firsti": i, "firstj": k, "secondi": k, "secondj": j}[mult]).astype(t)
    return binary(mult, a, b, t)
