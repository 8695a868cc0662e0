"""A round of verbs compiled into one cooperative kernel that runs the rounds on the device.

:meth:`~gbgraph.backends.base.Backend.iterate` hands the cupy backend a step: one round of a
worklist algorithm, written as verbs. :func:`compile_rounds` runs the step once on
placeholders (:class:`_Tracer`), which records each verb with its operands instead of
launching it, and generates CUDA C++ for the recorded program (:class:`_Program`):

- every vector of the round is a dense array of values and one of presence bytes (a
  bitmap, in SuiteSparse's terms), so a select or a masked verb writes flags where the
  verb-by-verb form compacts, and a vector that only the same row reads again stays in
  registers;
- the verbs that touch a row only at that row run one after another in one grid-stride loop
  over the rows (a phase); a verb that reads a vector at other rows (a product reading its
  input at the row's columns) waits at a grid-wide barrier for the phase that wrote it, and
  so does a verb that writes what the phase read at other rows;
- the loop over the rounds is in the kernel: the last phase counts the next worklist
  (``state[0]``) into one of four counters, and every thread reads it after the round's
  barrier, and with it the count before (``iterate``'s ``stall`` test). The host reads the
  counter and the round number once, when the kernel returns;
- a first phase that reads only its own row and writes only at the next worklist's rows
  (MIS-2's refresh of the statuses) runs at the end of the round before, for the next
  round, where that round is sure to run (:meth:`_Program._foldable`): one pass over the
  rows and one barrier less a round;
- matrices are read with int32 row pointers where their entries' positions fit, and the
  kernel is compiled for 8 blocks a multiprocessor unless that spills registers
  (:func:`_compiled`);
- a step is traced once: a later call whose step closes over operands of the same form
  (:class:`_Operands`; the same graph, or one with arrays of the same kinds and sizes)
  runs the program traced before on its own arrays (:meth:`_Program.bind`), and the
  buffers of the last programs run are kept for their next call (:data:`_KEPT`).

Each phase reads only what earlier phases (or rounds) wrote, and each row's verbs run in the
step's order on that row, so the results are those of the verbs, bit for bit, whatever the
order in which threads run. The row operators and index-unary operators are the same CUDA
translations the verb-by-verb kernels use (:mod:`.operators`), and the products the same
``reduce_row`` of ``kernels/mxv.cu``.

A step that uses anything else (a verb or form listed below as untraced, a read of a count
or of values on the host, sizes other than the state's) raises :class:`Untraceable` while
it is traced, and :mod:`.replay` records and replays it as before. Traced verbs: ``mxv``
with a built-in semiring over a full vector or with a :class:`~gbgraph.backends.operators.
RowOperator`, under a structural mask; ``select`` with a value comparison (to a scalar, or
of int32 or int64 values to the round number) or an
:class:`~gbgraph.backends.operators.IndexUnaryOp`; ``apply_index`` with an IndexUnaryOp or
MIS statuses (:class:`~gbgraph.hashing.Packing`); ``apply("identity", u, mask=m)``, the
mask complemented or not; ``assign(w, u, mask)`` into a full vector where the mask has u's
structure.
"""

import ast
import functools
import hashlib
import types
import weakref

import cupy
import cupyx
import numpy as np

from ...hashing import Packing
from .. import operators as ops
from ..base import Backend
from ..cuda_translate import Untranslatable, array_type, scalar_type, translate_operator
from . import kernels
from .containers import Matrix, Vector

__all__ = ["Untraceable", "compile_rounds", "programs"]

#: Steps compiled into one kernel so far (tests check that an algorithm's rounds are).
programs = 0

#: Most blocks per multiprocessor of a program's kernel: as many as its registers let
#: reside at once (a cooperative grid must), up to 8, where more warps in flight hide more
#: of the rows' gathers (as the native kernels' rounds). The kernel is compiled for 8 (32
#: registers a thread, ``__launch_bounds__``) unless that spills registers to local memory
#: (:func:`_compiled`): MIS-2's rounds at Laplace3D 200³ on the H100 took 2.49 ms at the 64
#: registers the compiler chose, 1.82 ms at 32 (its loads in flight matter more than its
#: registers).
_BLOCKS = 8

#: Bounds read on every call (``numpy.iinfo`` costs a few microseconds a call).
_INT32_MAX, _INT64_MAX = int(np.iinfo(np.int32).max), int(np.iinfo(np.int64).max)

#: Compiled rounds by device and the form of their trace: (kernel, the temporaries' types).
_MADE = {}

#: Steps traced so far (tests check that a second call on the same graph traces nothing).
traces = 0

#: Traced steps by the form of what they close over (:class:`_Operands`): their programs,
#: each with the properties of the operands its trace read (:meth:`_Program.bind`).
_TRACED = {}

#: The buffers of the programs run last (:meth:`_Program.run`), by program: (the device and
#: stream they were last used on, the buffers). A second call on the same graph allocates nothing.
_KEPT = {}

#: Most programs whose buffers :data:`_KEPT` holds between calls: MIS-2's and coloring's two,
#: so that one algorithm called again, or aggregation's two MIS-2, find them.
_KEPT_MOST = 2

#: Most forms kept in :data:`_TRACED`: each holds a program's small description (its kernel
#: is shared through :data:`_MADE`), and a hierarchy calls a step on a form per level.
_TRACED_MOST = 256


class Untraceable(Exception):
    """The step uses something a compiled round does not run; it is replayed instead."""


def compile_rounds(backend, step, state, first):
    """The step's round as a :class:`_Program` on these state vectors and the arrays it
    reads (its kernel's arguments, as :meth:`_Program.run` takes them), or None where it
    cannot be one (:class:`Untraceable`, or a translation or compilation that fails).

    A step traced before with operands of the same form (:class:`_Operands`) is not traced
    again: its program runs on this call's arrays."""
    global traces
    n = state[0].size
    if not n or not all(isinstance(v, Vector) and v.size == n for v in state):
        return None
    operands = _Operands(step, state)
    for program in _TRACED.get(operands.key, ()) if operands.key is not None else ():
        arrays = program.bind(operands.objects)
        if arrays is not None:
            return program, arrays
    tracer = _Tracer(n, state)
    backend._tracer = tracer
    try:
        results = step(*tracer.inputs, tracer.round)
        tracer.finish(tuple(results))
    except Exception:  # noqa: BLE001 - anything the trace cannot follow: the step runs as before
        return None
    finally:
        backend._tracer = None
    traces += 1
    try:
        program = _Program(tracer, operands)
    except (Untraceable, Untranslatable, cupy.cuda.compiler.CompileException):
        return None
    if operands.key is not None and program.bindable:
        if len(_TRACED) >= _TRACED_MOST:  # the oldest form goes: a cache of a few programs, not of every graph
            del _TRACED[next(iter(_TRACED))]
        _TRACED.setdefault(operands.key, []).append(program)
    return program, tuple(x.array if isinstance(x, _External) else x.value for x in tracer.externals.values())


# ---- what a step closes over ---------------------------------------------------------------


class _Operands:
    """The form of what a step reads besides its state, and the vectors and matrices in it.

    A step is a closure: its free variables (``__code__.co_freevars``) name what it closes
    over. ``key`` holds the device and, for the step and every function it closes over, its
    code and the form of each free variable and default: a vector's or matrix's kind (size,
    types, full or sparse; which earlier operand it is, if it is one again), numbers and strings by
    value, lists, tuples and dicts item by item, the statuses of
    :class:`~gbgraph.hashing.Packing` by what a trace reads of them, backends, operators and
    modules by identity. Steps with equal keys trace to the same program, save for what
    their vectors and matrices hold: ``objects`` lists those in order (the state first), and
    :meth:`_Program.bind` takes the new call's arrays from them. ``key`` is None where the
    step holds anything else (an array, an object whose attributes may change, an empty
    cell): such a step is traced every call."""

    _VALUES = (bool, int, float, complex, str, bytes, type(None), np.generic, np.dtype, type)

    def __init__(self, step, state):
        self.objects, self.ordinals, self._functions = [], {}, set()
        try:
            state_forms = tuple(self._operand(v, ("state", v.size, v.dtype.str)) for v in state)
            self.key = (cupy.cuda.runtime.getDevice(), state_forms, self._function(step))
            hash(self.key)
        except (TypeError, ValueError, AttributeError):  # an unhashable object, an empty cell, no code
            self.key = None

    def _operand(self, x, form):
        """x's form: its own, or where x came earlier, its place among the operands."""
        ordinal = self.ordinals.get(id(x))
        if ordinal is not None:
            return "again", ordinal
        self.ordinals[id(x)] = len(self.objects)
        self.objects.append(x)
        return form

    def _function(self, f):
        if id(f) in self._functions:  # a closure that reaches itself
            return "function again", f.__code__
        self._functions.add(id(f))
        cells = tuple(self._form(c.cell_contents) for c in f.__closure__ or ())
        return "function", f.__code__, cells, self._form(f.__defaults__), self._form(f.__kwdefaults__)

    def _form(self, x):
        if isinstance(x, Vector):
            return self._operand(x, ("vector", x.size, x.dtype.str, x.indices is None,
                                     None if x.indices is None else x.indices.dtype.str, x.count is None))
        if isinstance(x, Matrix):
            return self._operand(x, ("matrix", x.nrows, x.ncols, x.dtype.str, x.values is None, x.indices.dtype.str,
                                     x.nvals > _INT32_MAX))
        if isinstance(x, self._VALUES):
            return type(x), repr(x)
        if isinstance(x, (tuple, list)):
            return type(x), tuple(self._form(y) for y in x)
        if isinstance(x, dict):
            return dict, tuple((self._form(k), self._form(v)) for k, v in x.items())
        if isinstance(x, types.FunctionType):
            return self._function(x)
        if isinstance(x, types.MethodType):
            return "method", self._function(x.__func__), self._form(x.__self__)
        if isinstance(x, Packing):  # what _Tracer._statuses reads
            return type(x), x.bits, x.priority_hash, x.nv
        if isinstance(x, (Backend, ops._Operator, ops.Semiring, types.ModuleType)):
            return x
        raise TypeError(f"{type(x).__name__}: what it holds may steer the step")


# ---- tracing --------------------------------------------------------------------------------


class _Symbol:
    """A vector the traced round makes (or a state vector): ``structure`` names its pattern,
    equal for vectors with the same entries (0: full)."""

    __slots__ = ("id", "dtype", "structure", "fill", "phase", "stored", "state")

    def __init__(self, id_, dtype, structure):
        self.id, self.dtype, self.structure = id_, np.dtype(dtype), structure
        self.fill, self.phase, self.stored, self.state = None, None, False, None

    @property
    def full(self):
        return self.structure == 0


class _Round:
    """The round number, which a traced step may pass on only as a thunk."""


class _Node:
    """A recorded verb: C++ for one row ``i`` (``emit``), what it reads at row i (``own``) and
    at other rows (``far``), and the external vectors it writes (``writes``)."""

    def __init__(self, out, own=(), far=(), writes=(), emit=None, guard=None):
        self.out, self.own, self.far, self.writes, self.emit = out, tuple(own), tuple(far), tuple(writes), emit
        self.guard = guard  # the vector whose entries are the only rows the writes touch


class _Tracer:
    """Records the verbs a step calls (the cupy backend sends them here while it is set)."""

    def __init__(self, n, state):
        self.n, self.nodes, self.externals, self.ops, self.guards = n, [], {}, [], []
        self._structures = self._symbols = 0
        self.inputs = tuple(self._new(v.dtype) for v in state)
        for k, s in enumerate(self.inputs):
            s.state, s.phase = k, -1
        self.round = _Round()
        self.outputs, self._codes = None, ()

    def _new(self, dtype, structure=None):
        """A new symbol; ``structure`` None: a pattern of its own."""
        if structure is None:
            self._structures += 1
            structure = self._structures
        self._symbols += 1
        return _Symbol(self._symbols, dtype, structure)

    # ---- operands ---------------------------------------------------------------------

    def _vector(self, v, verb):
        """A symbol, or a full external vector of the state's size."""
        if isinstance(v, _Symbol):
            return v
        if isinstance(v, Vector) and v.size == self.n and v.indices is None and v.count is None and \
                v.dtype in kernels._C_TYPES:
            return self._external(v, "values")
        raise Untraceable(f"{verb}: an operand that is not full or not of the state's size")

    def _read(self, v, fill):
        """A row operator's vector: a sparse one from outside the round, which no traced verb
        writes, is made dense with its fill once, here, for every round."""
        if isinstance(v, Vector) and v.indices is not None and fill is not None and v.size == self.n and \
                v.dtype in kernels._C_TYPES:
            return self._external(v, ("dense", fill))
        return self._vector(v, "mxv")

    def _external(self, x, field):
        """The array ``_taken(x, field)`` as an argument of the kernel, named once however
        often it is read; each (x, field) it came from is kept for :meth:`_Program.bind`."""
        array = _taken(x, field)
        key = id(array)
        if key not in self.externals:
            self.externals[key] = _External(len(self.externals), array)
        self.externals[key].sources.append((x, field))
        return self.externals[key]

    def _property(self, A, check):
        """``check(A)``, kept with the program: a later call binds it only where it holds again."""
        value = check(A)
        self.guards.append((A, check, value))
        return value

    def _matrix(self, A, verb):
        if not (isinstance(A, Matrix) and A.nrows == self.n and A.ncols == self.n):
            raise Untraceable(f"{verb}: a matrix that is not n x n")
        return self._external(A, "indptr"), self._external(A, "indices"), \
            None if A.values is None else self._external(A, "values"), A

    @staticmethod
    def _plain(verb, out=None, accum=None, replace=False, structure=True, **_):
        if out is not None or accum is not None or replace or not structure:
            raise Untraceable(f"{verb}: output controls or a valued mask")

    # ---- verbs ------------------------------------------------------------------------

    def call(self, verb, args, kwargs):
        method = getattr(self, "verb_" + verb, None)
        if method is None:
            raise Untraceable(f"{verb} is not traced")
        return method(*args, **kwargs)

    def verb_mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None, accum=None,
             replace=False, transpose=False, order=None, push=None):
        self._plain("mxv", out, accum, replace, structure)
        if transpose or order is not None or push is not None or complement:
            raise Untraceable("mxv: transposed, ordered, pushed or under a complemented mask")
        indptr, cols, vals, matrix = self._matrix(A, "mxv")
        m = None if mask is None else self._vector(mask, "mxv")
        if isinstance(semiring, ops.RowOperator):
            vectors = tuple(u) if isinstance(u, (tuple, list)) else (u,)
            if len(vectors) != len(semiring.fill):
                raise Untraceable(f"mxv: {semiring!r} given {len(vectors)} vectors")
            vectors = tuple(self._read(v, fill) for v, fill in zip(vectors, semiring.fill))
            return self._rows(semiring, matrix, (indptr, cols, vals), vectors, m)
        if not isinstance(semiring, str):
            raise Untraceable("mxv: a user-defined semiring")
        return self._product(semiring, matrix, (indptr, cols, vals), self._vector(u, "mxv"), m)

    def _product(self, semiring, A, csr, u, m):
        from . import _product_type

        if not u.full:
            raise Untraceable("mxv: a built-in semiring over a sparse vector")
        dtype = _product_type("mxv", semiring, A.dtype, u.dtype, "left" if A.values is None else None)
        monoid, multiply = semiring.split("_", 1)
        if dtype is None or monoid not in kernels._MONOIDS or multiply not in kernels._MULTIPLIES or \
                dtype.kind == "f" and monoid in ("plus", "times") and self._property(A, _dense_rows):
            raise Untraceable(f"mxv: {semiring} on these types")
        every_row = self._property(A, _no_empty_row)
        w = self._new(dtype, (0 if m is None else m.structure) if every_row else None)
        indptr, cols, vals = csr
        tw, ta = kernels.c_type(dtype), "bool" if vals is None else kernels.c_type(A.dtype)
        reducer = f"gbgraph::reduce_row<gbgraph::{kernels._MONOIDS[monoid]}<{tw}>, " \
                  f"gbgraph::{kernels._MULTIPLIES[multiply]}<{tw}>>"

        def emit(c):
            a = "(const bool*)nullptr" if vals is None else c.array(vals)
            guard = "true" if m is None else c.present(m)
            return (f"if ({guard}) {{ {tw} acc; {c.presence_var(w)} = {reducer}(i, {c.array(indptr)}, "
                    f"{c.array(cols)}, {a}, {c.array_of(u)}, (const unsigned char*)nullptr, acc); "
                    f"{c.value_var(w)} = acc; }}")

        self.nodes.append(_Node(w, own=() if m is None else (m,), far=(u,) + tuple(x for x in csr if x is not None),
                                emit=emit))
        return w

    def _rows(self, op, A, csr, vectors, m):
        from .operators import _dtype, _row_translation

        for v, fill in zip(vectors, op.fill):
            if not v.full:
                if fill is None:
                    raise Untraceable(f"mxv: {op!r} reads a sparse vector without a fill")
                if v.fill is not None and v.fill != fill:
                    raise Untraceable("a vector read with two fills")
                v.fill = fill
        t = _row_translation(op, A, vectors)
        dtype = _dtype(t.result)
        if dtype not in kernels._C_TYPES:
            raise Untraceable(f"mxv: {op!r} returns {dtype}")
        self.ops.append(t.code)
        w = self._new(dtype, None)
        at_row = _read_at_row(op)
        own = tuple(v for k, v in enumerate(vectors) if k in at_row) + (() if m is None else (m,))
        far = tuple(v for k, v in enumerate(vectors) if k not in at_row) + tuple(x for x in csr if x is not None)
        indptr, cols, vals = csr
        tw = kernels.c_type(dtype)

        def emit(c):
            guard = "true" if m is None else c.present(m)
            arrays = "".join(f", {c.array_of(v)}" for v in vectors)
            a = "(const bool*)nullptr" if vals is None else c.array(vals)
            return (f"if ({guard}) {{ {tw} value = ({tw})0; {c.presence_var(w)} = {t.entry}::call(i, "
                    f"{c.array(indptr)}[i], {c.array(indptr)}[i + 1], {c.array(cols)}, {a}{arrays}, &value); "
                    f"{c.value_var(w)} = value; }}")

        self.nodes.append(_Node(w, own=own, far=far, emit=emit))
        return w

    def verb_select(self, op, u, thunk=None, *, mask=None, **controls):
        self._plain("select", **controls)
        if mask is not None:
            raise Untraceable("select under a mask")
        u = self._vector(u, "select")
        test, vectors = self._index_test(op, u, thunk, "select")
        w = self._new(u.dtype, None)

        def emit(c):
            return (f"{c.presence_var(w)} = {c.present(u)} && ({test(c)}); "
                    f"{c.value_var(w)} = {c.value(u)};")

        self.nodes.append(_Node(w, own=(u,), far=vectors, emit=emit))
        return w

    def verb_apply_index(self, op, u, thunk=None, *, mask=None, **controls):
        self._plain("apply_index", **controls)
        if mask is not None:
            raise Untraceable("apply_index under a mask")
        u = self._vector(u, "apply_index")
        if isinstance(op, Packing):
            return self._statuses(op, u, thunk)
        if not isinstance(op, ops.IndexUnaryOp):
            raise Untraceable("apply_index with a built-in operator")
        t, args, vectors = self._index_translation(op, u, thunk)
        w = self._new(_dtype(t.result), u.structure)

        def emit(c):
            return f"{c.presence_var(w)} = {c.present(u)}; " \
                   f"if ({c.present(u)}) {c.value_var(w)} = {t.entry}::call({c.value(u)}, i, 0LL{args(c)});"

        self.nodes.append(_Node(w, own=(u,), far=vectors, emit=emit))
        return w

    def _statuses(self, packing, u, thunk):
        if thunk is not self.round and not isinstance(thunk, (int, np.integer)):
            raise Untraceable("statuses of a round that is not a number")
        bits, star = packing.bits, "true" if packing.priority_hash == "xorshift*" else "false"
        dtype = np.dtype(np.int32) if bits == 32 else np.dtype(np.uint64)
        w = self._new(dtype, u.structure)
        nv, high = self._scalar(np.int32(packing.nv)), self._scalar(np.uint64(0xFFFFFFFF >> packing.nv << packing.nv))

        def emit(c):
            r = c.round if thunk is self.round else f"{int(thunk)}LL"
            x = f"gbgraph::packed_status<{bits}, {star}>(i, gbgraph::round_part<{bits}, {star}>({r}), " \
                f"{c.array(nv)}, {c.array(high)})"
            cast = f"(int)(unsigned int)({x})" if bits == 32 else x
            return f"{c.presence_var(w)} = {c.present(u)}; if ({c.present(u)}) {c.value_var(w)} = {cast};"

        self.nodes.append(_Node(w, own=(u,), emit=emit))
        return w

    def verb_apply(self, op, u, *, left=None, right=None, mask=None, complement=False, **controls):
        self._plain("apply", **controls)
        if op != "identity" or left is not None or right is not None:
            raise Untraceable("apply of an operator other than the identity")
        u = self._vector(u, "apply")
        m = None if mask is None else self._vector(mask, "apply")
        w = self._new(u.dtype, u.structure if m is None else None)

        def emit(c):
            kept = "" if m is None else f" && {'!' if complement else ''}{c.present(m)}"
            return f"{c.presence_var(w)} = {c.present(u)}{kept}; {c.value_var(w)} = {c.value(u)};"

        self.nodes.append(_Node(w, own=(u,) + (() if m is None else (m,)), emit=emit))
        return w

    def verb_assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        self._plain("assign", None, accum, replace, structure)
        if complement or mask is None or not isinstance(w, Vector) or w.indices is not None or \
                w.count is not None or w.size != self.n or w.dtype not in kernels._C_TYPES:
            raise Untraceable("assign without a mask, under a complemented mask, or into a vector that is not full")
        m = self._vector(mask, "assign")
        target = self._external(w, "values")
        if isinstance(value, _Symbol):
            if m.structure != value.structure or w.dtype != value.dtype:
                raise Untraceable("assign where the mask is not the value's pattern, or of another type")

            def emit(c):
                return f"if ({c.present(value)}) {c.array(target)}[i] = {c.value(value)};"

            self.nodes.append(_Node(None, own=(value, m), writes=(target,), emit=emit, guard=value))
            return w
        from ..numba import generic

        if not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
            raise Untraceable("assign of a vector from outside the round")
        scalar = self._scalar(generic.cast(np.asarray(value, generic.scalar_dtype(value)), w.dtype)[()])

        def emit(c):  # GraphBLAS casts the scalar to w's type (the verb-by-verb assign's rule)
            return f"if ({c.present(m)}) {c.array(target)}[i] = {c.array(scalar)};"

        self.nodes.append(_Node(None, own=(m,), writes=(target,), emit=emit, guard=m))
        return w

    # ---- index-unary operators --------------------------------------------------------

    def _index_translation(self, op, u, thunk):
        """The translation of ``op(x, i, j, thunk...)``, the C++ of its thunk arguments and the
        thunk's vectors (which the operator may read at any row)."""
        if isinstance(thunk, (tuple, list)):
            vectors = tuple(self._vector(v, "thunk") for v in thunk)
            if not all(v.full for v in vectors) or len(vectors) != op.arity - 3:
                raise Untraceable("a thunk of vectors that are not full")
            t = translate_operator(op, (scalar_type(u.dtype), scalar_type(np.int64), scalar_type(np.int64))
                                   + tuple(array_type(v.dtype) for v in vectors))
            self.ops.append(t.code)
            return t, lambda c: "".join(f", {c.array_of(v)}" for v in vectors), vectors
        if thunk is self.round or isinstance(thunk, (Vector, _Symbol)) or op.arity != 4:
            raise Untraceable("a thunk that is not a scalar")
        from ..numba import generic

        value = np.asarray(0 if thunk is None else thunk, generic.scalar_dtype(0 if thunk is None else thunk))
        t = translate_operator(op, (scalar_type(u.dtype), scalar_type(np.int64), scalar_type(np.int64),
                                    scalar_type(value.dtype)))
        self.ops.append(t.code)
        scalar = self._scalar(value[()])
        return t, lambda c: f", {c.array(scalar)}", ()

    def _index_test(self, op, u, thunk, verb):
        """C++ of the test a select keeps, for an IndexUnaryOp or a value comparison, and the
        vectors it reads."""
        if isinstance(op, ops.IndexUnaryOp):
            t, args, vectors = self._index_translation(op, u, thunk)
            return lambda c: f"{t.entry}::call({c.value(u)}, i, 0LL{args(c)})", vectors
        comparisons = {"valueeq": "==", "valuene": "!=", "valuelt": "<", "valuele": "<=", "valuegt": ">",
                       "valuege": ">="}
        if thunk is self.round and op in comparisons and u.dtype in (np.int32, np.int64):  # the round, on the device
            return lambda c: f"(long long){c.value(u)} {comparisons[op]} {c.round}", ()
        if op not in comparisons or thunk is None or isinstance(thunk, (Vector, _Symbol, _Round, tuple, list)):
            raise Untraceable(f"{verb}: {op!r}")
        from ..numba import generic

        if generic.unify(u.dtype, generic.scalar_dtype(thunk)) != u.dtype:
            raise Untraceable(f"{verb}: a thunk of another type")
        scalar = self._scalar(u.dtype.type(thunk))
        return lambda c: f"{c.value(u)} {comparisons[op]} {c.array(scalar)}", ()

    def _scalar(self, value):
        """A kernel argument holding a scalar (passed by value, so one source serves every graph)."""
        scalar = _Scalar(len(self.externals), value)
        self.externals[("scalar", len(self.externals))] = scalar
        return scalar

    # ---- the round's results ----------------------------------------------------------

    def key(self):
        """What the kernel's source depends on: each node's C++ (with every symbol named by
        its number), what it reads and writes, the symbols' types, patterns and fills, the
        state's slots and the externals' types: equal keys, equal sources."""
        def names(xs):
            return tuple(x.name if not isinstance(x, _Symbol) else x.id for x in xs)

        def symbol(s):
            return None if s is None else (s.id, s.dtype.str, s.full, s.fill, s.state)

        nodes = tuple((code, names(n.own), names(n.far), names(n.writes), symbol(n.out))
                      for code, n in zip(self._codes, self.nodes))
        externals = tuple((x.name, np.asarray(x.value).dtype.str if isinstance(x, _Scalar) else x.dtype.str)
                          for x in self.externals.values())
        return nodes, tuple(symbol(s) for s in self.inputs), externals

    def finish(self, results):
        if len(results) != len(self.inputs) or not all(isinstance(v, _Symbol) for v in results):
            raise Untraceable("a round that does not return new state vectors")
        probe = _Context(None)  # each node's C++ once: which values the round reads, and the key
        self._codes = [node.emit(probe) for node in self.nodes]
        self.values_read = probe.values_read
        for k, (v, s) in enumerate(zip(results, self.inputs)):
            if v.dtype != s.dtype:
                if s.id in probe.values_read:
                    raise Untraceable("a state vector that changes type")
                s.dtype = v.dtype  # a worklist read only as a mask: its buffers take the round's type
            if v.state is not None:
                raise Untraceable("a round that returns a state vector unchanged or in another slot")
            if s.fill is not None:  # the next round reads it with the fill where it has no entry
                if v.fill is not None and v.fill != s.fill:
                    raise Untraceable("a state vector read with two fills")
                v.fill = s.fill
            v.state = k
        self.outputs = results


class _External:
    """An array the round reads or writes in place (a matrix, a full vector), and the
    (vector or matrix, field) pairs it was taken from (:func:`_taken`)."""

    full, structure, fill, state, phase = True, 0, None, None, None

    def __init__(self, index, array):
        self.array, self.name, self.sources = array, f"x{index}", []

    @property
    def dtype(self):
        return self.array.dtype

    def param(self):
        return f"{'const ' if self.read_only else ''}{kernels.c_type(self.array.dtype)}* __restrict__ {self.name}"

    read_only = True


class _Scalar:
    """A scalar kernel argument."""

    def __init__(self, index, value):
        self.value, self.name = value, f"x{index}"

    def param(self):
        return f"const {kernels.c_type(np.asarray(self.value).dtype)} {self.name}"


def _taken(x, field):
    """The array a kernel reads for ``field`` of the vector or matrix ``x``: ``"values"``,
    a matrix's ``"indptr"`` (narrow where it fits) or ``"indices"``, or ``("dense", fill)``,
    a sparse vector made dense with ``fill`` where it has no entry (a new array)."""
    if field == "values":
        return x.values
    if field == "indptr":
        return x.narrow_indptr
    if field == "indices":
        return x.indices
    dense = cupy.full(x.size, field[1], x.dtype)
    kernels.scatter(dense, x)
    return dense


def _dense_rows(A):
    """Whether A's rows average 16 entries or more, where the verb-by-verb product sums a
    row in another order than a compiled round's ``reduce_row``."""
    return A.avg_degree >= 16


def _no_empty_row(A):
    """Whether every row of A has an entry (a product then has every row of its mask)."""
    return A.min_degree > 0


@functools.lru_cache(maxsize=None)
def _read_at_row(op):
    """Positions of the vectors a RowOperator reads only at its own row (every use of the
    parameter in its function is ``v[i]``, i the row): the rest it reads at other rows."""
    function = ast.parse(op.source).body[0]
    params = [a.arg for a in function.args.args]
    row, vectors = params[0], params[5:]
    own = set()
    for k, name in enumerate(vectors):
        uses = [node for node in ast.walk(function) if isinstance(node, ast.Name) and node.id == name]
        subscripts = [node for node in ast.walk(function) if isinstance(node, ast.Subscript) and
                      isinstance(node.value, ast.Name) and node.value.id == name and
                      isinstance(node.slice, ast.Name) and node.slice.id == row]
        if uses and len(subscripts) == len(uses):
            own.add(k)
    return own


# ---- the program --------------------------------------------------------------------------


def _phases(nodes):
    """The nodes split where a barrier must come between them (see the module's docstring)."""
    phases, written, far = [[]], set(), set()
    for node in nodes:
        if written & {id(x) for x in node.far} or far & {id(x) for x in node.writes}:
            phases.append([])
            written, far = set(), set()
        phases[-1].append(node)
        written |= {id(x) for x in node.writes} | ({id(node.out)} if node.out is not None else set())
        far |= {id(x) for x in node.far}
    return phases


class _Program:
    """The kernel of a traced round and what it runs on: :meth:`run` takes the state
    vectors to the round ``stop`` (or until ``state[0]`` is empty). The kernel, the source
    and the temporaries' types depend only on the trace's form (:meth:`_Tracer.key`), so a
    second call with vectors of the same kinds reuses them. A program keeps no array of
    the call that traced it: :meth:`bind` takes a call's arrays from its operands."""

    def __init__(self, tracer, operands):
        self.tracer = tracer
        device = cupy.cuda.runtime.getDevice()
        key = device, tracer.key()
        made = _MADE.get(key)
        if made is None:
            self._phases = _phases(tracer.nodes)
            self._place()
            self._folded = self._foldable()
            source, name = self._source()
            made = _MADE[key] = (_compiled(source, name, device),
                                 tuple((s.dtype, s.full) for s in self._temporaries))
        self._kernel, self._temporary_types = made
        self._per_multiprocessor = _resident(self._kernel)
        self._n = tracer.n
        self._unread = []  # weak references to the last run's states not compacted yet (_Unread)
        # each state's type, its fill and whether the round reads its values
        self._states = tuple((s.dtype, s.fill, s.id in tracer.values_read) for s in tracer.inputs)
        self.bindable = operands.key is not None
        at = operands.ordinals
        try:
            self._guards = tuple((at[id(A)], check, value) for A, check, value in tracer.guards)
            self._binders = tuple(("scalar", x.value) if isinstance(x, _Scalar) else
                                  tuple((at[id(obj)], field) for obj, field in x.sources)
                                  for x in tracer.externals.values())
        except KeyError:  # an operand the step does not close over (made inside it): traced every call
            self.bindable = False
        self.tracer = self._phases = self._temporaries = None

    def bind(self, objects):
        """The kernel's arrays for the operands ``objects`` (:class:`_Operands`) of a step
        traced to this program, or None where they differ from the traced ones in a property
        the trace read, or in which of them are the same array."""
        if not all(check(objects[k]) == value for k, check, value in self._guards):
            return None
        arrays, named = [], set()
        for binder in self._binders:
            if binder[0] == "scalar":
                arrays.append(binder[1])
                continue
            taken = [_taken(objects[k], field) for k, field in binder]
            if any(x is not taken[0] for x in taken) or id(taken[0]) in named:
                return None
            named.add(id(taken[0]))
            arrays.append(taken[0])
        return tuple(arrays)

    def _place(self):
        """Which symbols live in memory: those read at other rows, in a later phase, or kept
        as state; the rest stay in the registers of the row that makes them."""
        made = {}
        for p, phase in enumerate(self._phases):
            for node in phase:
                if node.out is not None:
                    node.out.phase = p
                    made[id(node.out)] = node.out
        for s in self.tracer.inputs:
            s.phase, s.stored = -1, True
        for p, phase in enumerate(self._phases):
            for node in phase:
                for x in node.far:
                    if isinstance(x, _Symbol):
                        x.stored = True
                for x in node.own:
                    if isinstance(x, _Symbol) and x.phase != p:
                        x.stored = True
        for v in self.tracer.outputs:
            v.stored = True
        self._temporaries = [s for s in made.values() if s.stored and s.state is None]

    def _foldable(self):
        """Whether the first phase can run for round r + 1 at the end of round r's last phase,
        row by row, which saves a pass over the rows and a barrier a round (MIS-2's refresh of
        the statuses, folded into the decision as native MIS-2 does): the first phase reads
        only its own row, keeps nothing for later phases, writes only at the rows of the next
        worklist (``state[0]``), which the round after reads, and the last phase does not read
        what it writes at other rows. The kernel folds only when the next round is sure to run
        if the worklist is not empty (no ``stall`` test, not the bound's last round)."""
        phases, s0 = self._phases, self.tracer.inputs[0]
        if len(phases) < 2:
            return False
        first, last = phases[0], phases[-1]
        if any(node.far or node.out is not None and node.out.stored for node in first):
            return False
        if any(node.writes and (node.guard is None or node.guard.full or node.guard.structure != s0.structure)
               for node in first):
            return False
        written = {id(x) for node in first for x in node.writes}
        return not any(id(x) in written for node in last for x in node.far)

    def _source(self):
        tracer = self.tracer
        written = {id(x) for node in tracer.nodes for x in node.writes}
        for x in tracer.externals.values():
            if id(x) in written:
                x.read_only = False
        params = ["const long long n"] + [x.param() for x in tracer.externals.values()]
        for k, s in enumerate(tracer.inputs):
            t = kernels.c_type(s.dtype)
            params += [f"{t}* s{k}v0", f"{t}* s{k}v1", f"unsigned char* s{k}p0", f"unsigned char* s{k}p1"]
        for s in self._temporaries:
            params += [f"{kernels.c_type(s.dtype)}* __restrict__ t{s.id}v"]
            if not s.full:
                params += [f"unsigned char* __restrict__ t{s.id}p"]
        params += ["unsigned long long* counts", "const long long first_round", "const long long stop",
                   "const long long stall", "const long long stall_from"]
        body, last = [], len(self._phases) - 1
        for p, phase in enumerate(self._phases):
            if self._folded and p == last:  # the first phase of the next round, at the same rows
                ahead = self._phase_lines(0, self._phases[0], _Context(0, tracer.values_read, ahead=True))[0]
                fold = "if (fold) {  // round r + 1's first phase\n" + "\n".join("    " + x for x in ahead) + "\n}"
                body.append("        const bool fold = stall == 0 && r + 1 < stop;\n"
                            + self._phase_source(p, phase, fold) + "\n        ready = fold;")
            elif self._folded and p == 0:
                body.append("        if (!ready) {\n" + self._phase_source(p, phase) + "\n        }")
            else:
                body.append(self._phase_source(p, phase))
        text = "\n".join(body)
        ops_code = "\n".join(dict.fromkeys(tracer.ops))
        states = "\n".join(
            f"        {kernels.c_type(s.dtype)}* const s{k}v = (r & 1) ? s{k}v1 : s{k}v0;\n"
            f"        unsigned char* const s{k}p = (r & 1) ? s{k}p1 : s{k}p0;\n"
            f"        {kernels.c_type(s.dtype)}* const n{k}v = (r & 1) ? s{k}v0 : s{k}v1;\n"
            f"        unsigned char* const n{k}p = (r & 1) ? s{k}p0 : s{k}p1;"
            for k, s in enumerate(tracer.inputs))
        ready = "\n    bool ready = false;  // the round's first phase already ran, in the round before" \
            if self._folded else ""
        digest = hashlib.sha1((ops_code + text + ",".join(params)).encode()).hexdigest()[:16]
        name = f"gbgraph_rounds_{digest}"
        source = f"""#include <cooperative_groups.h>
#include "mxv.cu"
#include "hashing.cu"
#include "operators.cu"
#include "blocks.cuh"
{ops_code}
extern "C" __global__ void __launch_bounds__(256, GBGRAPH_MIN_BLOCKS) {name}({", ".join(params)})
{{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long r = first_round;{ready}
    for (;; ++r) {{
        const long long left = (long long)counts[r % 4];
        if (left == 0) break;
        if (stall > 0 && r > stall_from && ((long long)counts[(r + 3) % 4] - left) * stall < left) {{
            if (first == 0) counts[5] = 1;  // iterate's stall test (base.py), before the bound
            break;
        }}
        if (r >= stop) break;
        if (first == 0) counts[(r + 2) % 4] = 0;  // last read in round r - 1, next written in round r + 1
{states}
{text}
    }}
    if (first == 0) counts[4] = (unsigned long long)r;
}}
"""
        return source, name

    @staticmethod
    def _phase_lines(p, phase, c):
        """The C++ of one row of a phase, and whether it counts the next worklist."""
        lines = []
        counted = False
        for node in phase:
            code = node.emit(c)
            lines += c.take_loads()
            if node.out is not None:
                c.declare(node.out, lines)
            lines.append(code)
            if node.out is not None and node.out.stored:
                c.store(node.out, lines)
                counted |= node.out.state == 0
        return lines, counted

    def _phase_source(self, p, phase, fold=""):
        """A phase's loop over the rows; ``fold`` is C++ to run after each row."""
        lines, counted = self._phase_lines(p, phase, _Context(p, self.tracer.values_read))
        inner = "\n".join("            " + line for line in "\n".join(lines + [fold]).splitlines())
        count = "unsigned mine = 0;" if counted else ""
        tail = "gbgraph::add_over_block(mine, &counts[(r + 1) % 4]);" if counted else ""
        return f"""        {{  // phase {p}
            {count}
            for (long long i = first; i < n; i += stride) {{
{inner}
            }}
            {tail}
        }}
        grid.sync();"""

    # ---- running ------------------------------------------------------------------------

    def run(self, arrays, state, first, stop, check, stall=None):
        """The rounds from ``first`` on the kernel's ``arrays`` (:meth:`bind`): (state, next
        round), as :func:`replay.iterate` returns."""
        global programs
        programs += 1
        n = self._n
        stream = cupy.cuda.get_current_stream()
        where = cupy.cuda.runtime.getDevice(), stream.ptr
        for ref in self._unread:  # the last run's states still unread: compacted before the buffers are written
            v = ref()
            if v is not None:
                v.settle()
        self._unread = []
        kept = _KEPT.pop(self, None)
        if kept is None or kept[0] != where:  # buffers a call on another stream may still be reading
            kept = where, self._buffers()
        buffers, temporaries, counts, staged = kept[1]
        at = first & 1  # round r reads the buffers of its parity; the other is written whole before it is read
        args = [np.int64(n), *arrays]
        for v, (dtype, fill, read), (values, present) in zip(state, self._states, buffers):
            # a worklist's values, which the round never reads, are left as they are
            if v.indices is None:
                present[at].data.memset_async(1, n)
                if read:
                    values[at][...] = v.values[:n]
            else:
                present[at].data.memset_async(0, n)
                kernels.scatter_scalar(present[at], v, 1)
                if read and fill is not None:
                    values[at].fill(fill)
                if read:
                    kernels.scatter(values[at], v)
            args += values + present
        args += temporaries
        left = state[0].entry_count()
        # the worklist's size by round mod 4, the round reached, stalled: from pinned memory, so
        # that the copy waits on nothing (from pageable memory it waits for the stream)
        staged[...] = 0
        staged[first % 4] = left
        counts.set(staged, stream=stream)
        grid = kernels.cooperative_blocks(n, self._per_multiprocessor)
        r, due = first, first
        while True:
            if left == 0 or stop is not None and r >= stop:
                break
            if check is not None and r >= due:
                rounds = check(tuple(state) if r == first else self._state(buffers, r, left), r)
                if not rounds:
                    break
                due = r + rounds
            bound = _INT64_MAX if stop is None else stop
            if check is not None:
                bound = min(bound, due)
            self._kernel((grid,), (256,), tuple(args) + (counts, np.int64(r), np.int64(bound),
                                                         np.int64(stall or 0), np.int64(first)))
            host = counts.get()  # the host's one wait: the round reached and the worklist left
            r = int(host[4])
            left = int(host[r % 4])
            if host[5]:
                break
        # no round ran: the state is the one given (the buffers of a worklist hold no values)
        out = tuple(state) if r == first else self._state(buffers, r, left, unread=True)
        _KEPT[self] = kept
        while len(_KEPT) > _KEPT_MOST:
            del _KEPT[next(iter(_KEPT))]
        return out, r

    def _buffers(self):
        """Arrays for a run: each state's values and presence by parity (one array of values
        where the round never reads them: nothing reads what a round overwrites), the
        temporaries, the counters and their first values in pinned host memory."""
        n, buffers, temporaries = self._n, [], []
        for dtype, _, read in self._states:
            one = cupy.empty(n, dtype)
            buffers.append(([one, cupy.empty(n, dtype) if read else one],
                            [cupy.empty(n, cupy.uint8) for _ in range(2)]))
        for dtype, full in self._temporary_types:
            temporaries.append(cupy.empty(n, dtype))
            if not full:
                temporaries.append(cupy.empty(n, cupy.uint8))
        return buffers, temporaries, cupy.empty(6, cupy.uint64), cupyx.empty_pinned(6, np.uint64)

    def _state(self, buffers, r, left, unread=False):
        """The state vectors after round r - 1 (in the buffers of parity r), as the cupy
        backend's vectors (compacted, counts on the device; ``state[0]`` has ``left``
        entries). ``unread``: the states after the first are compacted when first read
        (:class:`_Unread`), which the rounds' callers often never do."""
        out = []
        for k, (values, present) in enumerate(buffers):
            if k == 0 and left == 0:
                out.append(Vector(self._n, cupy.empty(0, cupy.int64), cupy.empty(0, values[r & 1].dtype)))
                continue
            if k and unread:
                v = _Unread(self._n, values[r & 1], present[r & 1])
                self._unread.append(weakref.ref(v))
                out.append(v)
                continue
            v = Vector(self._n, None, values[r & 1])
            out.append(Vector(self._n, *kernels.compact("ne", v, 0, keys=present[r & 1])))
        return tuple(out)


def _settled(slot):
    """A property of :class:`_Unread` over the :class:`Vector` slot ``slot``, which compacts
    the vector first."""
    def get(self):
        self.settle()
        return slot.__get__(self)

    def set(self, value):
        self.settle()
        slot.__set__(self, value)

    return property(get, set)


class _Unread(Vector):
    """A state vector after the rounds, compacted from the run's buffers (values and presence
    bytes) when first read: a state the caller drops unread costs no compaction (MIS-2's
    column worklist, a pass over n bytes and a launch). Its program's next run, which writes
    those buffers, compacts it first (:meth:`_Program.run`)."""

    __slots__ = ("_buffers", "__weakref__")

    indices = _settled(Vector.indices)
    values = _settled(Vector.values)
    count = _settled(Vector.count)

    def __init__(self, size, values, present):  # the other slots are set by settle
        self.size, self._buffers = int(size), (values, present)

    def settle(self):
        """Compacts the buffers into the vector's entries (once); returns self."""
        if self._buffers is not None:
            values, present = self._buffers
            self._buffers = None
            made = kernels.compact("ne", Vector(self.size, None, values), 0, keys=present)
            for slot, x in zip((Vector.indices, Vector.values, Vector.count), made):
                slot.__set__(self, x)
        return self


class _Context:
    """Names of the symbols in one phase's C++; a symbol made in an earlier phase (or a state
    vector) is loaded at row i where the phase first reads its value or its presence."""

    def __init__(self, phase, read=None, ahead=False):
        self.phase, self.loaded, self.loads, self.values_read = phase, set(), [], set()
        self.read = read  # the symbols whose values the round reads (None: all)
        # ahead: the C++ runs for the next round (a first phase folded into the last one),
        # whose state vectors are this round's results
        self.ahead, self.round = ahead, "(r + 1)" if ahead else "r"

    @staticmethod
    def array(x):
        return x.name

    def array_of(self, v):
        """The array of a vector read at other rows: an external's, a stored symbol's."""
        if isinstance(v, _External):
            return v.name
        self.values_read.add(v.id)
        if v.state is not None and v.phase == -1:
            return f"{'n' if self.ahead else 's'}{v.state}v"
        if v.state is not None:
            return f"n{v.state}v"
        return f"t{v.id}v"

    def _presence_array(self, v):
        if v.state is not None and v.phase == -1:
            return f"{'n' if self.ahead else 's'}{v.state}p"
        if v.state is not None:
            return f"n{v.state}p"
        return f"t{v.id}p"

    def _load(self, v, what):
        if v.phase != self.phase and (v.id, what) not in self.loaded:
            self.loaded.add((v.id, what))
            if what == "v":  # where absent, whatever was stored last (see store): read only under p
                t = kernels.c_type(v.dtype)
                self.loads.append(f"const {t} v{v.id} = {self.array_of(v)}[i];")
            else:
                self.loads.append(f"const bool p{v.id} = {self._presence_array(v)}[i] != 0;")

    def take_loads(self):
        loads, self.loads = self.loads, []
        return loads

    def value(self, v):
        if isinstance(v, _External):
            return f"{v.name}[i]"
        self.values_read.add(v.id)
        self._load(v, "v")
        return f"v{v.id}"

    def present(self, v):
        if isinstance(v, _External) or v.full:
            return "true"
        self._load(v, "p")
        return f"p{v.id}"

    def value_var(self, v):
        return f"v{v.id}"

    def presence_var(self, v):
        return f"p{v.id}" if not v.full else "const bool unused_" + str(v.id)

    @staticmethod
    def declare(v, lines):
        t = kernels.c_type(v.dtype)
        lines.append(f"{t} v{v.id} = ({t})0;" + ("" if v.full else f" bool p{v.id} = false;"))

    def store(self, v, lines):
        """v's value at row i, and its presence: a vector read with a fill (by row operators,
        at any row) holds the fill where absent; any other sparse one a value only where
        present (less traffic on the rows it skips): its readers look at the value only
        where the presence says so, and load it unguarded, at the same time as the presence;
        a temporary whose values the round never reads (a mask) its presence only. (Writing the
        fill only where a row's entry goes, after reading its presence there, made coloring's
        rounds slower: 2.0 -> 2.5 ms at Laplace3D 200³ on the H100.)"""
        target = self.array_of(v)
        if v.full:
            lines.append(f"{target}[i] = v{v.id};")
        elif v.fill is not None:
            lines.append(f"{target}[i] = p{v.id} ? v{v.id} : ({kernels.c_type(v.dtype)})({_literal(v.fill)}); "
                         f"{self._presence_array(v)}[i] = p{v.id};")
        elif v.state is None and self.read is not None and v.id not in self.read:  # a mask: no values
            lines.append(f"{self._presence_array(v)}[i] = p{v.id};")
        else:
            lines.append(f"if (p{v.id}) {target}[i] = v{v.id}; {self._presence_array(v)}[i] = p{v.id};")
        if v.state == 0:
            lines.append("mine += 1;" if v.full else f"mine += p{v.id};")


def _literal(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return f"{int(value)}LL"


@functools.lru_cache(maxsize=None)
def _resident(kernel):
    """Blocks of 256 threads of ``kernel`` one multiprocessor holds at once, at most
    :data:`_BLOCKS`: its 64K registers are the limit (a block's shared memory is 128 bytes)."""
    warp = -(-kernel.num_regs * 32 // 256) * 256  # registers are given to warps 256 at a time
    return max(1, min(_BLOCKS, 65536 // (8 * warp)))


@functools.lru_cache(maxsize=None)
def _compiled(source, name, device):
    """The kernel compiled for :data:`_BLOCKS` blocks a multiprocessor, or, where that makes
    it keep more in local memory than the compiler's own choice (spilled registers; a
    ``local()`` array is there either way), as the compiler chooses."""
    def compile_for(blocks):
        module = cupy.RawModule(code=f"// gbgraph kernels {kernels.sources_digest(kernels.KERNEL_DIR)}\n{source}",
                                options=("-std=c++17", "--fmad=false", f"-I{kernels.KERNEL_DIR}",
                                         f"-DGBGRAPH_MIN_BLOCKS={blocks}"),
                                enable_cooperative_groups=True)
        return module.get_function(name)

    bounded = compile_for(_BLOCKS)
    if bounded.local_size_bytes == 0:
        return bounded
    free = compile_for(1)
    return bounded if bounded.local_size_bytes <= free.local_size_bytes else free
