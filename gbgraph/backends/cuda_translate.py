"""User-defined operators in restricted Python, translated to CUDA C++ ``__device__`` code.

The ``cupy`` backend runs a user-defined operator (:mod:`gbgraph.backends.operators`) inside
the templated kernels of ``cupy/kernels/operators.cu``: this module turns the operator's
function into a C++ functor, ``struct <entry> { static __device__ R call(...); }``, that the
kernels call. It imports neither CuPy nor a CUDA library (the tests compile its output with
the host's C++ compiler and compare it with numba), so it lives beside the backends rather
than in the ``cupy`` package, whose import needs CuPy.

Semantics are numba's, the types numba's own: the function is compiled by numba for the
argument types, every local takes numba's type (all versions of a local must agree in kind:
int, float or bool), and every expression is typed by numba's typing context, operand by
operand, so ``int32 + int32`` is int64 and ``uint64 + 1`` int64 here as in numba. The C++
then casts each operand to the type numba computes in. Python's meanings where C++ differs:
``//`` and ``%`` floor (``gbgraph::py`` in ``pyops.cuh``), ``/`` is true division, ``**``
on integers only, ``min``/``max`` keep the first operand unless the second compares below
(above) it, ``and``/``or`` return an operand, chained comparisons, ``range`` with a step of
either sign. Where Python raises (a zero divisor) the device gives 0 for integers and IEEE
results for floats; negative array indices are not wrapped. What numba leaves undefined stays
undefined: a float cast to an integer type it does not fit (the device saturates), signed
overflow (the device wraps).

A row operator ``func(i, start, stop, cols, vals, v1, ...) -> (value, present)`` becomes
``static bool call(long long i, ..., const T1* v1, ..., R* value)``: ``*value = value;
return present;``.
"""

import ast
import functools
import hashlib
import inspect
import operator
import textwrap
from dataclasses import dataclass

import numpy as np

__all__ = ["Translation", "Untranslatable", "translate", "translate_operator", "function_source", "scalar_type",
           "array_type", "c_name"]

_C_NAMES = {"bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
            "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int", "int64": "long long",
            "uint64": "unsigned long long", "float32": "float", "float64": "double"}
#: C++ promotes these to int in arithmetic: results are cast back to them.
_PROMOTED = {"bool", "int8", "uint8", "int16", "uint16"}
_CASTS = {"int32", "int64", "uint32", "uint64", "float32", "float64", "bool_"}
_BINARY = {ast.Add: (operator.add, "+"), ast.Sub: (operator.sub, "-"), ast.Mult: (operator.mul, "*"),
           ast.Div: (operator.truediv, "/"), ast.FloorDiv: (operator.floordiv, "//"), ast.Mod: (operator.mod, "%"),
           ast.Pow: (operator.pow, "**"), ast.LShift: (operator.lshift, "<<"), ast.RShift: (operator.rshift, ">>"),
           ast.BitAnd: (operator.and_, "&"), ast.BitOr: (operator.or_, "|"), ast.BitXor: (operator.xor, "^")}
_COMPARE = {ast.Eq: (operator.eq, "=="), ast.NotEq: (operator.ne, "!="), ast.Lt: (operator.lt, "<"),
            ast.LtE: (operator.le, "<="), ast.Gt: (operator.gt, ">"), ast.GtE: (operator.ge, ">=")}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}


class Untranslatable(TypeError):
    """A function numba compiles but this translation does not (a local whose versions numba
    types as different kinds, a float power, recursion): the cupy backend runs the operator
    on the host instead."""


@dataclass(frozen=True)
class Translation:
    """C++ source of an operator's functor (and of the helpers it calls), its name, and the
    numba types of its arguments and result (for a row operator, of ``value``)."""

    code: str
    entry: str
    argtypes: tuple
    result: object


@functools.lru_cache(maxsize=None)
def scalar_type(dtype):
    """numba's type of a scalar of numpy ``dtype`` (made once per dtype: every kernel launch
    of an operator asks for its argument types)."""
    import numba

    return numba.from_dtype(np.dtype(dtype))


@functools.lru_cache(maxsize=None)
def array_type(dtype):
    """numba's type of a contiguous 1-d array of numpy ``dtype`` (made once per dtype)."""
    import numba

    return numba.types.Array(scalar_type(dtype), 1, "C")


def c_name(numba_type):
    """The C++ type of a numba scalar type (``int64`` -> ``long long``)."""
    name = _dtype_name(numba_type)
    if name not in _C_NAMES:
        raise Untranslatable(f"no C++ type for {numba_type}")
    return _C_NAMES[name]


def function_source(func):
    """The source of ``func`` (an operator's ``source`` when it has one), dedented, without
    decorators: the text every backend compiles."""
    source = getattr(func, "source", None)
    if source is None:
        source = textwrap.dedent(inspect.getsource(func))
    tree = ast.parse(textwrap.dedent(source))
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError(f"an operator's function must be a def, got {type(node).__name__}")
    lines = textwrap.dedent(source).splitlines()
    first = node.lineno - 1  # the def line: decorators come before it
    return "\n".join(lines[first:]) + "\n"


def translate(func, argtypes, *, row=False, constants=None, helpers=(), pattern=()):
    """The C++ functor of ``func`` (an operator's function) for numba argument types
    ``argtypes`` (:func:`scalar_type`, :func:`array_type`).

    Parameters
    ----------
    func : function
        Module-level, restricted Python (:mod:`gbgraph.backends.operators`).
    argtypes : tuple of numba types
    row : bool
        A row operator: returns ``(value, present)``.
    constants : dict, optional
        Compile-time constants the function names (ints or floats).
    helpers : tuple of functions
        Operator functions it may call.
    pattern : tuple of str
        Array arguments of a pattern matrix: their reads are ``True`` (the kernel passes no
        values).

    Returns
    -------
    Translation

    Raises
    ------
    gbgraph.backends.operators.TypingError
        numba cannot type the function on ``argtypes``, or types its result as no scalar.
    Untranslatable
        A construct outside restricted Python (naming it and its line), or a local whose
        versions numba types differently in kind.

    Examples
    --------
    >>> import numpy as np
    >>> def double_it(x):
    ...     return x * 2
    >>> t = translate(double_it, (scalar_type(np.int32),))
    >>> "static __device__ __forceinline__ long long call(int l_x)" in t.code
    True
    """
    constants = dict(constants or {})
    sources = tuple((h.__name__, function_source(h)) for h in helpers)
    return _translate(function_source(func), func.__name__, tuple(argtypes), bool(row),
                      tuple(sorted(constants.items())), sources, tuple(pattern))


def translate_operator(op, argtypes, *, pattern=(), storage=None):
    """:func:`translate` of an operator of :mod:`gbgraph.backends.operators` (its checked
    source, constants and helpers) for numba argument types ``argtypes``; ``storage`` maps
    array arguments to the dtype their buffers hold when it is not the typed one (a
    matrix's int32 columns typed int64): the parameter takes the buffer, reads are cast."""
    from .operators import RowOperator

    sources = tuple((h.name, h.source) for h in op._checked_helpers)
    stored = tuple(sorted((k, np.dtype(v).name) for k, v in (storage or {}).items()))
    return _translate(op.source, op._main.name, tuple(argtypes), isinstance(op, RowOperator), tuple(op.constants),
                      sources, tuple(pattern), stored)


@functools.lru_cache(maxsize=256)
def _translate(source, name, argtypes, row, constants, helper_sources, pattern, storage=()):
    import numba

    namespace = {"np": np, "local": np.zeros, **dict(constants)}  # local() is np.zeros in numba too
    trees = {}
    for helper, text in helper_sources:
        exec(compile(text, f"<helper {helper}>", "exec"), namespace)
        namespace[helper] = numba.njit(namespace[helper])
        trees[helper] = ast.parse(text).body[0]
    exec(compile(source, f"<operator {name}>", "exec"), namespace)
    dispatcher = numba.njit(namespace[name])
    module = _Module(namespace, trees, dict(constants))
    tree = ast.parse(source).body[0]
    entry, result = module.function(tree, dispatcher, argtypes, row=row, pattern=pattern, storage=storage,
                                    entry=True)
    return Translation("\n".join(module.parts) + "\n", entry, argtypes, result)


def _dtype_name(t):
    from numba.core import types

    t = types.unliteral(t)
    if t == types.boolean:
        return "bool"
    if isinstance(t, (types.Integer, types.Float)):
        return t.name
    return str(t)


def _kind(t):
    """'b', 'i', 'u' or 'f'; None for a non-scalar."""
    from numba.core import types

    t = types.unliteral(t)
    if t == types.boolean:
        return "b"
    if isinstance(t, types.Integer):
        return "i" if t.signed else "u"
    if isinstance(t, types.Float):
        return "f"
    return None


def _cast(code, source, target):
    """``code`` (of numba type ``source``) converted as numba converts it to ``target``."""
    from numba.core import types

    source, target = types.unliteral(source), types.unliteral(target)
    if source == target:
        return code
    return f"(({c_name(target)})({code}))"


def _literal(value):
    """(C++ text, numba type) of a Python constant."""
    from numba.core import types

    if isinstance(value, bool):
        return ("true" if value else "false"), types.literal(value)
    if isinstance(value, int):
        if -2**63 <= value < 2**63:
            text = "(-9223372036854775807LL - 1)" if value == -2**63 else f"{value}LL"
            return text, types.literal(value)
        if 0 <= value < 2**64:
            return f"{value}ULL", types.uint64
        raise Untranslatable(f"the integer {value} does not fit 64 bits")
    if isinstance(value, float):
        if value != value:
            return "(0.0 / 0.0)", types.float64
        if value in (float("inf"), -float("inf")):
            return ("(1.0 / 0.0)" if value > 0 else "(-1.0 / 0.0)"), types.float64
        text = repr(value)
        return (text if any(c in text for c in ".en") else text + ".0"), types.float64
    raise Untranslatable(f"constant {value!r} of type {type(value).__name__}: only int, float and bool")


class _Module:
    """The C++ of one operator: its functor and one function per (helper, argument types)."""

    def __init__(self, namespace, helper_trees, constants):
        import numba
        from numba.core.registry import cpu_target

        self.numba = numba
        self.context = cpu_target.typing_context
        self.context.refresh()
        self.namespace, self.helper_trees, self.constants = namespace, helper_trees, constants
        self.parts, self.done, self.busy = [], {}, set()

    def function(self, tree, dispatcher, argtypes, *, row=False, pattern=(), storage=(), entry=False):
        """Translates ``tree`` for ``argtypes``; returns (C++ name, result numba type)."""
        from numba.core import types

        key = (tree.name, argtypes, row, pattern, storage)
        if key in self.done:
            return self.done[key]
        if key in self.busy:
            raise Untranslatable(f"line {tree.lineno}: {tree.name} calls itself; recursion is not supported")
        from .operators import TypingError

        try:
            dispatcher.compile(argtypes)
        except Exception as e:  # numba's typing errors, named with the function
            raise TypingError(f"numba cannot type {tree.name}{tuple(map(str, argtypes))}: "
                              f"{str(e).splitlines()[0]}") from None
        self.busy.add(key)
        overload = dispatcher.overloads[argtypes]
        returned = overload.signature.return_type
        if row:
            if not isinstance(returned, types.BaseTuple) or len(returned) != 2:
                raise TypingError(f"{tree.name} must return (value, present), numba types its result {returned}")
            result = types.unliteral(returned[0])
        else:
            result = types.unliteral(returned)
        if _kind(result) is None:
            raise TypingError(f"{tree.name} returns {returned}: every path must return a number or bool")
        digest = hashlib.sha256(repr((ast.dump(tree), argtypes, row, pattern, storage)).encode()).hexdigest()[:12]
        cname = f"gbgraph_op_{tree.name}_{digest}"
        try:
            body = _Function(self, tree, overload.type_annotation.typemap, argtypes, returned, row, pattern, storage)
            code = body.translate()
        finally:
            self.busy.discard(key)
        params = body.parameters()
        if entry:
            self.parts.append(f"struct {cname} {{\n    static __device__ __forceinline__ "
                              f"{'bool' if row else c_name(result)} call({params})\n{code}}};")
        else:
            self.parts.append(f"__device__ __forceinline__ {c_name(result)} {cname}({params})\n{code}")
        self.done[key] = (cname, result)
        return self.done[key]

    def resolve(self, fn, argtypes, node):
        """numba's signature of ``fn`` on ``argtypes``; TypeError naming the line."""
        try:
            sig = self.context.resolve_function_type(fn, tuple(argtypes), {})
        except Exception:
            sig = None
        if sig is None:
            name = getattr(fn, "__name__", str(fn))
            raise Untranslatable(f"line {node.lineno}: numba has no {name} for "
                            f"({', '.join(str(t) for t in argtypes)})")
        return sig


class _Function:
    """One function's body: statements and expressions to C++."""

    def __init__(self, module, tree, typemap, argtypes, returned, row, pattern, storage):
        self.module, self.tree, self.returned, self.row = module, tree, returned, row
        self.pattern = set(pattern)
        self.stored = dict(storage)
        self.storage = {name: scalar_type(dtype) for name, dtype in storage}
        args = tree.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
            raise Untranslatable(f"line {tree.lineno}: {tree.name} takes plain positional arguments only")
        self.args = [a.arg for a in args.args]
        if len(self.args) != len(argtypes):
            raise Untranslatable(f"{tree.name} takes {len(self.args)} arguments, given types for {len(argtypes)}")
        self.types = dict(zip(self.args, argtypes))
        self.arrays = {}  # local arrays: name -> (dtype numba type, length)
        self.counter = 0
        self._local_types(typemap)

    # ---- types ---------------------------------------------------------------------------

    def _local_types(self, typemap):
        """Each local's numba type: the unified type of its versions (``x``, ``x.1``, ...),
        which must agree in kind (a local is int, float or bool throughout)."""
        from numba.core import types

        versions = {}
        for key, t in typemap.items():
            if key.startswith(("$", "arg.")):
                continue
            versions.setdefault(key.split(".")[0], []).append(types.unliteral(t))
        for name, ts in versions.items():
            if name in self.types:
                continue
            if any(isinstance(t, types.Array) for t in ts):
                self.types[name] = ts[0]
                continue
            unified = functools.reduce(self.module.context.unify_types, ts)
            kinds = {_kind(t) for t in ts} - {None}
            if unified is None or len(kinds) > 1 or _kind(unified) not in kinds:
                raise Untranslatable(f"{self.tree.name}: local {name!r} is {', '.join(sorted(set(map(str, ts))))} "
                                f"in numba's typing; give it one type (cast its first assignment)")
            self.types[name] = unified

    def parameters(self):
        params = []
        for name in self.args:
            t = self.types[name]
            if isinstance(t, self.module.numba.types.Array):  # arguments are read only
                params.append(f"const {c_name(self.storage.get(name, t.dtype))}* l_{name}")
            else:
                params.append(f"{c_name(t)} l_{name}")
        if self.row:
            params.append(f"{c_name(self.returned[0])}* gb_value")
        return ", ".join(params)

    # ---- statements ----------------------------------------------------------------------

    def translate(self):
        body = self.block(self.tree.body, 1, top=True)
        locals_ = []
        for name, t in sorted(self.types.items()):
            if name in self.args or name in self.arrays:
                continue
            if isinstance(t, self.module.numba.types.Array):
                continue
            if _kind(t) is not None:
                locals_.append(f"        {c_name(t)} l_{name};\n")
        for name, (dtype, length) in sorted(self.arrays.items()):  # zeroed where local() is called
            locals_.append(f"        {c_name(dtype)} l_{name}[{length}];\n")
        constants = [f"        constexpr {c_name(t)} l_{name} = {text};\n"
                     for name, (text, t) in sorted(self.used_constants.items())]
        return "    {\n" + "".join(constants) + "".join(locals_) + body + "    }\n"

    @functools.cached_property
    def used_constants(self):
        return {}

    def block(self, statements, depth, top=False):
        out = []
        for i, s in enumerate(statements):
            if top and i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and \
                    isinstance(s.value.value, str):
                continue  # the docstring
            out.append(self.statement(s, depth))
        return "".join(out)

    def statement(self, s, depth):
        pad = "    " * (depth + 1)
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.error(s, "chained assignment (a = b = ...)")
            return pad + self.assign(s.targets[0], s.value, s) + "\n"
        if isinstance(s, ast.AugAssign):  # x op= y is x = x op y: numba types both alike on numbers
            target = s.target
            if not isinstance(target, (ast.Name, ast.Subscript)):
                raise self.error(s, "augmented assignment to this target")
            current = ast.copy_location(ast.Name(id=target.id, ctx=ast.Load()), s) if isinstance(target, ast.Name) \
                else ast.copy_location(ast.Subscript(value=target.value, slice=target.slice, ctx=ast.Load()), s)
            value = ast.copy_location(ast.BinOp(left=current, op=s.op, right=s.value), s)
            return pad + self.assign(target, value, s) + "\n"
        if isinstance(s, ast.If):
            test, _ = self.expr(s.test)
            text = f"{pad}if ({test}) {{\n{self.block(s.body, depth + 1)}{pad}}}"
            if s.orelse:
                text += f" else {{\n{self.block(s.orelse, depth + 1)}{pad}}}"
            return text + "\n"
        if isinstance(s, ast.While):
            if s.orelse:
                raise self.error(s, "while ... else")
            test, _ = self.expr(s.test)
            return f"{pad}while ({test}) {{\n{self.block(s.body, depth + 1)}{pad}}}\n"
        if isinstance(s, ast.For):
            return self.for_range(s, depth)
        if isinstance(s, ast.Break):
            return pad + "break;\n"
        if isinstance(s, ast.Continue):
            return pad + "continue;\n"
        if isinstance(s, ast.Pass):
            return pad + ";\n"
        if isinstance(s, ast.Return):
            return pad + self.return_(s) + "\n"
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            code, _ = self.expr(s.value)
            return f"{pad}(void)({code});\n"
        raise self.error(s, type(s).__name__)

    def assign(self, target, value, node):
        if isinstance(target, ast.Name):
            name = target.id
            if name in self.args:
                raise self.error(node, f"assignment to the argument {name!r}")
            if name in self.module.constants:
                raise self.error(node, f"assignment to the constant {name!r}")
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "local":
                return self.local_array(name, value)
            if name in self.arrays:
                raise self.error(node, f"assignment to the local array {name!r}")
            code, t = self.expr(value)
            if _kind(t) is None:
                raise self.error(node, f"assignment of an array to {name!r} (index it: a[k])")
            if name not in self.types:  # not in numba's typemap: code numba found dead
                self.types[name] = self.module.numba.types.unliteral(t)
            return f"l_{name} = {_cast(code, t, self.types[name])};"
        if isinstance(target, ast.Subscript):
            array = target.value
            if not isinstance(array, ast.Name) or array.id not in self.arrays:
                raise self.error(node, "a write to an array that is not a local(n, dtype) array")
            index = self.index(target)
            code, t = self.expr(value)
            return f"l_{array.id}[{index}] = {_cast(code, t, self.arrays[array.id][0])};"
        raise self.error(node, f"assignment to {type(target).__name__} (tuples are not supported)")

    def local_array(self, name, call):
        if len(call.args) != 2 or call.keywords:
            raise self.error(call, "local(n, dtype) takes two arguments")
        n, dtype = call.args
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            length = n.value
        elif isinstance(n, ast.Name) and isinstance(self.module.constants.get(n.id), int):
            length = self.module.constants[n.id]
        else:
            raise self.error(call, "local(n, dtype) needs n an int literal or a constant")
        element = self._cast_type(dtype)
        if element is None:
            raise self.error(call, "local(n, dtype) needs dtype one of np.int32 ... np.float64, np.bool_")
        if name in self.arrays or length <= 0:
            raise self.error(call, f"local array {name!r} made twice or of length {length}")
        self.arrays[name] = (element, length)
        self.types[name] = self.module.numba.types.Array(element, 1, "C")
        # zeros each time the call runs, as numba's: not at the function's top, where a
        # row that never reaches the call (first fit's wider windows) would clear it too
        return f"for (int gb_z = 0; gb_z < {length}; ++gb_z) l_{name}[gb_z] = 0;  /* {name}: local({length}) */"

    def for_range(self, s, depth):
        pad = "    " * (depth + 1)
        call = s.iter
        if s.orelse:
            raise self.error(s, "for ... else")
        if not (isinstance(s.target, ast.Name) and isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "range" and 1 <= len(call.args) <= 3 and not call.keywords):
            raise self.error(s, "a for loop other than for k in range(...)")
        name = s.target.id
        if name in self.args or name in self.arrays or name in self.module.constants:
            raise self.error(s, f"the loop variable {name!r} is an argument, array or constant")
        t = self.types.get(name)
        bounds = [self.expr(a) for a in call.args]
        if t is None:
            t = self.module.numba.types.int64
            self.types[name] = t
        start, stop = (("0LL", t), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
        step = bounds[2] if len(bounds) == 3 else ("1LL", t)
        self.counter += 1
        c, ct = f"gb_k{self.counter}", c_name(t)
        literal_step = call.args[2] if len(call.args) == 3 else ast.Constant(value=1)
        literal_step = _folded(literal_step)
        cast = [_cast(code, bt, t) for code, bt in (start, stop, step)]
        head = f"{pad}{{\n{pad}    const {ct} {c}_stop = {cast[1]}, {c}_step = {cast[2]};\n"
        if isinstance(literal_step, ast.Constant) and isinstance(literal_step.value, int):
            if literal_step.value == 0:
                raise self.error(s, "range() with a step of 0")
            cond = f"{c} < {c}_stop" if literal_step.value > 0 else f"{c} > {c}_stop"
            guard = ""
        else:
            cond = f"({c}_step > 0 ? {c} < {c}_stop : {c} > {c}_stop)"
            guard = f"if ({c}_step != 0) "
        loop = (f"{pad}    {guard}for ({ct} {c} = {cast[0]}; {cond}; {c} += {c}_step) {{\n"
                f"{pad}        l_{name} = {c};\n{self.block(s.body, depth + 2)}{pad}    }}\n{pad}}}\n")
        return head + loop

    def return_(self, s):
        from numba.core import types

        if self.row:
            if not isinstance(s.value, ast.Tuple) or len(s.value.elts) != 2:
                raise self.error(s, "a row operator returns value, present")
            value, present = (self.expr(e) for e in s.value.elts)
            return (f"{{ *gb_value = {_cast(value[0], value[1], self.returned[0])}; "
                    f"return {_cast(present[0], present[1], types.boolean)}; }}")
        if s.value is None or isinstance(s.value, ast.Tuple):
            raise self.error(s, "a return without a single value")
        code, t = self.expr(s.value)
        return f"return {_cast(code, t, self.returned)};"

    # ---- expressions: (C++ text, numba type) ----------------------------------------------

    def expr(self, e):
        e = _folded(e)
        if isinstance(e, ast.Constant):
            return _literal(e.value)
        if isinstance(e, ast.Name):
            return self.name(e)
        if isinstance(e, ast.BinOp):
            return self.binop(e)
        if isinstance(e, ast.UnaryOp):
            return self.unary(e)
        if isinstance(e, ast.BoolOp):
            return self.boolop(e)
        if isinstance(e, ast.Compare):
            return self.compare(e)
        if isinstance(e, ast.IfExp):
            test, _ = self.expr(e.test)
            (a, ta), (b, tb) = self.expr(e.body), self.expr(e.orelse)
            t = self.unify(ta, tb, e)
            return f"({test} ? {_cast(a, ta, t)} : {_cast(b, tb, t)})", t
        if isinstance(e, ast.Subscript):
            return self.subscript(e)
        if isinstance(e, ast.Call):
            return self.call(e)
        raise self.error(e, type(e).__name__)

    def name(self, e):
        name = e.id
        if name in self.module.constants:
            text, t = _literal(self.module.constants[name])
            self.used_constants[name] = (text, self.module.numba.types.unliteral(t))
            return f"l_{name}", t
        if name in self.arrays:
            raise self.error(e, f"the local array {name!r} used as a value")
        if name not in self.types:
            raise self.error(e, f"the name {name!r} (not an argument, local or constant)")
        return f"l_{name}", self.types[name]

    def binop_parts(self, op, node):
        if type(op) not in _BINARY:
            raise self.error(node, f"the operator {type(op).__name__}")
        return _BINARY[type(op)]

    def binop(self, e):
        fn, symbol = self.binop_parts(e.op, e)
        (a, ta), (b, tb) = self.expr(e.left), self.expr(e.right)
        sig = self.module.resolve(fn, (ta, tb), e)
        r = sig.return_type
        a, b = (_cast(_cast(code, t, s), s, r) for code, t, s in ((a, ta, sig.args[0]), (b, tb, sig.args[1])))
        kind, c = _kind(r), c_name(r)
        if symbol == "**":
            if kind not in "iu":
                raise self.error(e, f"** on {r}: only integer powers")
            return f"gbgraph::py::pow_int<{c}>({a}, {b})", r
        if symbol in ("//", "%"):
            family = {"i": "int", "u": "uint", "f": "real"}[kind]
            helper = "floordiv" if symbol == "//" else "mod"
            return f"gbgraph::py::{helper}_{family}<{c}>({a}, {b})", r
        text = f"({a} {symbol} {b})"
        return (f"(({c}){text})" if _dtype_name(r) in _PROMOTED else text), r

    def unary(self, e):
        from numba.core import types

        (a, ta) = self.expr(e.operand)
        fn = _UNARY[type(e.op)]
        sig = self.module.resolve(fn, (ta,), e)
        s, r = sig.args[0], sig.return_type
        a = _cast(a, ta, s)
        if fn is operator.not_:
            return f"(!{a})", types.boolean
        if fn is operator.pos:
            return _cast(a, s, r), r
        if _dtype_name(s) == "bool":
            if fn is operator.invert:
                return _cast(f"(!{a})", types.boolean, r), r
            return f"(-{_cast(a, s, r)})", r
        symbol = "-" if fn is operator.neg else "~"
        return _cast(f"(({c_name(s)})({symbol}{a}))", s, r), r

    def boolop(self, e):
        from numba.core import types

        values = [self.expr(v) for v in e.values]
        if all(_dtype_name(t) == "bool" for _, t in values):
            symbol = " && " if isinstance(e.op, ast.And) else " || "
            return "(" + symbol.join(code for code, _ in values) + ")", types.boolean
        # Python returns an operand: x and y is (y if x else x), x or y is (x if x else y)
        code, t = values[-1]
        for left, lt in reversed(values[:-1]):
            u = self.unify(lt, t, e)
            if isinstance(e.op, ast.And):
                code = f"({left} ? {_cast(code, t, u)} : {_cast(left, lt, u)})"
            else:
                code = f"({left} ? {_cast(left, lt, u)} : {_cast(code, t, u)})"
            t = u
        return code, t

    def compare(self, e):
        from numba.core import types

        parts = []
        left = self.expr(e.left)
        for op, right_node in zip(e.ops, e.comparators):
            if type(op) not in _COMPARE:
                raise self.error(e, f"the comparison {type(op).__name__}")
            fn, symbol = _COMPARE[type(op)]
            right = self.expr(right_node)
            sig = self.module.resolve(fn, (left[1], right[1]), e)
            a, b = _cast(left[0], left[1], sig.args[0]), _cast(right[0], right[1], sig.args[1])
            parts.append(f"({a} {symbol} {b})")
            left = right
        return ("(" + " && ".join(parts) + ")" if len(parts) > 1 else parts[0]), types.boolean

    def unify(self, a, b, node):
        t = self.module.context.unify_types(a, b)
        if t is None or _kind(t) is None:
            raise self.error(node, f"values of types {a} and {b} that numba cannot unify")
        return self.module.numba.types.unliteral(t)

    def index(self, sub):
        if isinstance(sub.slice, (ast.Slice, ast.Tuple)):
            raise self.error(sub, "a slice or tuple index (index one element: a[k])")
        code, t = self.expr(sub.slice)
        if _kind(t) not in ("i", "u", "b"):
            raise self.error(sub, f"an index of type {t}")
        return _cast(code, t, self.module.numba.types.int64)

    def subscript(self, e):
        array = e.value
        if not isinstance(array, ast.Name):
            raise self.error(e, "a subscript of an expression (subscript an argument or local array)")
        t = self.types.get(array.id)
        if not isinstance(t, self.module.numba.types.Array):
            raise self.error(e, f"a subscript of {array.id!r}, which is not an array")
        index = self.index(e)
        if array.id in self.pattern:
            return "true", self.module.numba.types.boolean
        read = f"l_{array.id}[{index}]"
        if array.id in self.storage:
            read = _cast(read, self.storage[array.id], t.dtype)
        return read, t.dtype

    def _cast_type(self, node):
        """The numba type of ``np.<name>`` (a cast or a dtype), or None."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "np" and \
                node.attr in _CASTS:
            return scalar_type(np.dtype(getattr(np, node.attr)))
        return None

    def call(self, e):
        if e.keywords:
            raise self.error(e, "a call with keyword arguments")
        target = self._cast_type(e.func)
        if target is not None:
            if len(e.args) != 1:
                raise self.error(e, "a cast takes one argument")
            code, t = self.expr(e.args[0])
            if _kind(t) is None:
                raise self.error(e, f"a cast of {t}")
            return _cast(code, t, target), target
        if not isinstance(e.func, ast.Name):
            raise self.error(e, "a call of an expression (call a cast, min, max, abs or a helper)")
        name = e.func.id
        args = [self.expr(a) for a in e.args]
        if name in ("min", "max"):
            if len(args) != 2:
                raise self.error(e, f"{name} with {len(args)} arguments (two)")
            t = self.unify(args[0][1], args[1][1], e)
            a, b = (_cast(code, at, t) for code, at in args)
            return f"gbgraph::py::{name}_<{c_name(t)}>({a}, {b})", t
        if name == "abs":
            if len(args) != 1:
                raise self.error(e, "abs with more than one argument")
            sig = self.module.resolve(abs, (args[0][1],), e)
            r = sig.return_type
            a = _cast(_cast(args[0][0], args[0][1], sig.args[0]), sig.args[0], r)
            if _kind(r) == "u":
                return a, r
            return f"gbgraph::py::abs_(({c_name(r)})({a}))", r
        if name in self.module.helper_trees:
            return self.helper(e, name, args)
        if name == "local":
            raise self.error(e, "local(n, dtype) other than as the value of an assignment")
        raise self.error(e, f"a call of {name!r} (only casts, min, max, abs and helpers)")

    def helper(self, e, name, args):
        from numba.core import types

        dispatcher = self.module.namespace[name]
        sig = self.module.resolve(self.module.numba.typeof(dispatcher), tuple(t for _, t in args), e)
        argtypes = tuple(sig.args)
        tree = self.module.helper_trees[name]
        # an array passed on by name keeps its storage (int32 columns) and pattern in the helper
        passed = [(p.arg, a.id) for p, a in zip(tree.args.args, e.args) if isinstance(a, ast.Name)]
        pattern = tuple(sorted(p for p, a in passed if a in self.pattern))
        storage = tuple(sorted((p, self.stored[a]) for p, a in passed if a in self.stored))
        cname, result = self.module.function(tree, dispatcher, argtypes, pattern=pattern, storage=storage)
        texts = []
        for (code, t), s in zip(args, argtypes):
            texts.append(code if isinstance(s, types.Array) else _cast(code, t, s))
        return f"{cname}({', '.join(texts)})", result

    def error(self, node, what):
        return Untranslatable(f"{self.tree.name}, line {getattr(node, 'lineno', '?')}: {what} is not restricted Python "
                         "(gbgraph.backends.operators lists what is)")


def _folded(e):
    """``e`` with constant arithmetic folded, as CPython's compiler folds it (``-5``,
    ``2**63``, ``1 << 40``): numba types the folded constant."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd, ast.Invert)):
        operand = _folded(e.operand)
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float) and \
                not (isinstance(e.op, ast.Invert) and isinstance(operand.value, float)):
            value = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(e.op)](
                operand.value)
            return ast.copy_location(ast.Constant(value=value), e)
    if isinstance(e, ast.BinOp) and type(e.op) in _BINARY:
        left, right = _folded(e.left), _folded(e.right)
        if isinstance(left, ast.Constant) and isinstance(right, ast.Constant) and \
                type(left.value) in (int, float) and type(right.value) in (int, float):
            try:
                value = _BINARY[type(e.op)][0](left.value, right.value)
            except (ArithmeticError, ValueError, TypeError):
                return e
            if isinstance(value, int) and abs(value) >= 2**64:
                return e
            return ast.copy_location(ast.Constant(value=value), e)
    return e
