"""User-defined operators: written once in restricted Python, compiled by every backend.

An algorithm step that no generic verb does (the smallest free color of a row, the best
neighbouring aggregate, a select predicate that reads vectors at ``i`` and ``j``) becomes an
operator passed to a generic verb of :class:`gbgraph.backends.base.Backend`, as
python-graphblas' user-defined operators are passed to its verbs:

======================  ==========================================  ===========================
operator                function                                    verbs
======================  ==========================================  ===========================
:class:`UnaryOp`        ``f(x) -> y``                               ``apply``
:class:`BinaryOp`       ``f(x, y) -> z``                            ``apply`` (``left``/
                                                                    ``right``), ``ewise_add``,
                                                                    ``ewise_mult``, the multiply
                                                                    of a :class:`Semiring`
:class:`IndexUnaryOp`   ``f(x, i, j, thunk) -> y`` or               ``apply_index``, ``select``
                        ``f(x, i, j, v1, v2, ...)`` (vector thunks)
:class:`Monoid`         ``f(x, y) -> z`` with an identity           ``reduce``, ``reduce_rows``,
                                                                    ``reduce_cols``,
                                                                    ``ewise_add``, the add of a
                                                                    :class:`Semiring`
:class:`Semiring`       a monoid and a multiply                     ``mxv``, ``vxm``, ``mxm``
:class:`RowOperator`    ``f(i, start, stop, cols, vals, v1, ...)``  ``mxv(op, A, vectors)``
                        ``-> (value, present)``
======================  ==========================================  ===========================

Restricted Python
-----------------
An operator's function (and each of its ``helpers``) is checked when the operator is made;
anything else raises ``TypeError`` naming the construct and its line:

- arguments, local scalars and literals (an int is int64, a float float64, ``True``/``False``
  bool); casts ``np.int32(x)``, ``np.int64``, ``np.uint32``, ``np.uint64``, ``np.float32``,
  ``np.float64``, ``np.bool_`` (the function's module imports ``numpy as np``);
- ``+ - * / // % & | ^ ~ << >>``, comparisons (chained too), ``and or not``, ``a if c else b``,
  ``min(a, b)``, ``max(a, b)``, ``abs(x)``, augmented assignment;
- ``if``/``elif``/``else``, ``while``, ``for k in range(a[, b[, step]])``, ``break``,
  ``continue``, ``return`` (a tuple only as ``return value, present`` of a row operator);
- reads ``a[k]`` of array arguments, writes only to arrays made by :func:`local`;
- names of the operator's ``constants`` (compile-time ints and floats) and calls of its
  ``helpers`` (restricted-Python functions compiled alongside).

Types come from numba: an operator is typed by numba for its argument dtypes, and the result
dtype of a verb that takes it is that type, on every backend. A local's type is fixed by
numba's unification of its assignments: mixing int64 and uint64 gives float64, so cast
explicitly. ``//`` and ``%`` have Python's (floor) semantics on signed integers; division
by zero is the operator's business (numba raises ``ZeroDivisionError``).

Backends compile the operator from :attr:`source` (numba: a generated module compiled with
``cache=True``; cupy: a CUDA device function made from the syntax tree).
"""

import ast
import functools
import inspect
import textwrap

import numpy as np

__all__ = ["UnaryOp", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring", "RowOperator", "local", "CASTS",
           "program", "TypingError", "accumulating"]

#: The casts restricted Python may call, ``np.<name>(x)``.
CASTS = ("int32", "int64", "uint32", "uint64", "float32", "float64", "bool_")
_BUILTINS = {"min": 2, "max": 2, "abs": 1}
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor,
           ast.LShift, ast.RShift)
_UNARYOPS = (ast.UAdd, ast.USub, ast.Invert, ast.Not)
_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: What an operator's row and column indices are: int64, on every backend.
INDEX = np.dtype(np.int64)


class TypingError(TypeError):
    """numba cannot type an operator's function on the given dtypes, or types its result as
    no scalar (a verb reports it as ``NotImplementedError`` naming verb, operator, dtypes and
    backend)."""


def local(n, dtype):
    """A local array of ``n`` zeros of ``dtype``, for use inside an operator's function.

    Parameters
    ----------
    n : int
        An int literal or a name of the operator's ``constants``.
    dtype : numpy scalar type
        One of ``np.int32``, ``np.int64``, ``np.uint32``, ``np.uint64``, ``np.float32``,
        ``np.float64``, ``np.bool_``.

    Returns
    -------
    numpy.ndarray
        Zeros (backends clear it too, so a row never reads another row's values).

    Raises
    ------
    ValueError
        If ``n`` is negative (numpy's error).

    Examples
    --------
    >>> local(3, np.int64)
    array([0, 0, 0])
    """
    return np.zeros(n, dtype)


def register_local():
    """Teaches numba ``local`` (``np.zeros`` of the same arguments inside compiled code),
    once, before anything is typed or compiled: numba is imported only then, so that
    importing gbgraph (whose algorithm modules make operators) does not import it."""
    global _LOCAL_REGISTERED
    if _LOCAL_REGISTERED:
        return
    from numba.extending import overload

    @overload(local, inline="always")
    def _local(n, dtype):
        return lambda n, dtype: np.zeros(n, dtype)

    _LOCAL_REGISTERED = True


_LOCAL_REGISTERED = False


class _Checker(ast.NodeVisitor):
    """Walks one function's syntax tree and raises ``TypeError`` at the first construct that
    restricted Python does not allow."""

    def __init__(self, tree, where, first_line, filename, constants, helpers, returns_pair):
        self.where, self.first_line, self.filename = where, first_line, filename
        self.constants, self.helpers, self.returns_pair = constants, helpers, returns_pair
        self.function = tree.body[0]
        self.arguments = {a.arg for a in self.function.args.args}
        self.locals, self.arrays = set(), set()
        self.uses_np = False
        for node in ast.walk(self.function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Name) and node.value.func.id == "local":
                self.arrays.update(t.id for t in node.targets if isinstance(t, ast.Name))

    def fail(self, node, construct):
        line = self.first_line + getattr(node, "lineno", 1) - 1
        raise TypeError(f"{self.where}: {construct} is not allowed in an operator (line {line} of {self.filename}); "
                        "see gbgraph.backends.operators for restricted Python")

    def check(self):
        f = self.function
        args = f.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            self.fail(f, "*args, **kwargs, keyword-only, positional-only or default arguments")
        if not f.args.args:
            self.fail(f, "a function without arguments")
        body = f.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        if not body:
            self.fail(f, "an empty body")
        for statement in body:
            self.visit(statement)
        return self.uses_np

    def generic_visit(self, node):
        self.fail(node, f"'{type(node).__name__}'")

    def _visit_all(self, nodes):
        for node in nodes:
            self.visit(node)

    # statements
    def visit_Assign(self, node):
        if len(node.targets) != 1:
            self.fail(node, "a chained assignment 'a = b = ...'")
        self._target(node.targets[0])
        if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and node.value.func.id == "local":
            self._local(node.value)
        else:
            self.visit(node.value)

    def visit_AugAssign(self, node):
        if not isinstance(node.op, _BINOPS):
            self.fail(node, f"the operator '{type(node.op).__name__}='")
        self._target(node.target)
        self.visit(node.value)

    def _target(self, target):
        if isinstance(target, ast.Name):
            if target.id in self.arguments:
                self.fail(target, f"assigning to the argument '{target.id}'")
            if target.id in self.constants or target.id in self.helpers or target.id in ("np", "local"):
                self.fail(target, f"assigning to '{target.id}'")
        elif isinstance(target, ast.Subscript):
            if not (isinstance(target.value, ast.Name) and target.value.id in self.arrays):
                self.fail(target, "writing to an array that local() did not make")
            self._index(target)
        else:
            self.fail(target, f"assigning to a '{type(target).__name__}' (tuple unpacking, attributes)")

    def visit_If(self, node):
        self.visit(node.test)
        self._visit_all(node.body)
        self._visit_all(node.orelse)

    def visit_While(self, node):
        if node.orelse:
            self.fail(node, "'while ... else'")
        self.visit(node.test)
        self._visit_all(node.body)

    def visit_For(self, node):
        if node.orelse:
            self.fail(node, "'for ... else'")
        if not isinstance(node.target, ast.Name):
            self.fail(node, "a 'for' target that is not a name")
        self._target(node.target)
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
                and 1 <= len(call.args) <= 3 and not call.keywords):
            self.fail(node, "a 'for' loop over anything but range(a[, b[, step]])")
        self._visit_all(call.args)
        self._visit_all(node.body)

    def visit_Return(self, node):
        if node.value is None:
            self.fail(node, "'return' without a value")
        if isinstance(node.value, ast.Tuple):
            if not self.returns_pair or len(node.value.elts) != 2:
                self.fail(node, "returning a tuple (only a row operator returns 'value, present')")
            self._visit_all(node.value.elts)
        elif self.returns_pair:
            self.fail(node, "a row operator's 'return' without 'value, present'")
        else:
            self.visit(node.value)

    def visit_Break(self, node):
        pass

    def visit_Continue(self, node):
        pass

    def visit_Pass(self, node):
        pass

    # expressions
    def visit_Constant(self, node):
        if type(node.value) not in (int, float, bool):
            self.fail(node, f"the literal {node.value!r}")

    def visit_Name(self, node):
        name = node.id
        if name in self.arguments or name in self.locals or name in self.constants:
            return
        if name in self.helpers or name in _BUILTINS or name in ("range", "local", "np"):
            self.fail(node, f"'{name}' other than in a call")
        self.fail(node, f"the global name '{name}' (not an argument, a local or one of the constants)")

    def visit_BinOp(self, node):
        if not isinstance(node.op, _BINOPS):
            self.fail(node, f"the operator '{type(node.op).__name__}'")
        self.visit(node.left)
        self.visit(node.right)

    def visit_UnaryOp(self, node):
        if not isinstance(node.op, _UNARYOPS):
            self.fail(node, f"the operator '{type(node.op).__name__}'")
        self.visit(node.operand)

    def visit_BoolOp(self, node):
        self._visit_all(node.values)

    def visit_Compare(self, node):
        for op in node.ops:
            if not isinstance(op, _CMPOPS):
                self.fail(node, f"the comparison '{type(op).__name__}'")
        self.visit(node.left)
        self._visit_all(node.comparators)

    def visit_IfExp(self, node):
        self._visit_all((node.test, node.body, node.orelse))

    def visit_Subscript(self, node):
        if not (isinstance(node.value, ast.Name) and (node.value.id in self.arguments or node.value.id in self.arrays)):
            self.fail(node, "a subscript of anything but an array argument or a local() array")
        self._index(node)

    def _index(self, node):
        if isinstance(node.slice, (ast.Slice, ast.Tuple)):
            self.fail(node, "a slice or a multi-dimensional subscript")
        self.visit(node.slice)

    def visit_Call(self, node):
        if node.keywords:
            self.fail(node, "keyword arguments")
        callee = node.func
        if isinstance(callee, ast.Attribute):
            if not (isinstance(callee.value, ast.Name) and callee.value.id == "np" and callee.attr in CASTS):
                self.fail(node, f"the call of '{ast.unparse(callee)}' (casts are np.{', np.'.join(CASTS)})")
            if len(node.args) != 1:
                self.fail(node, f"np.{callee.attr} with {len(node.args)} arguments")
            self.uses_np = True
        elif isinstance(callee, ast.Name) and callee.id in _BUILTINS:
            if len(node.args) != _BUILTINS[callee.id]:
                self.fail(node, f"{callee.id} with {len(node.args)} arguments")
        elif isinstance(callee, ast.Name) and callee.id in self.helpers:
            pass
        elif isinstance(callee, ast.Name) and callee.id == "local":
            self.fail(node, "local() other than as 'name = local(n, dtype)'")
        else:
            self.fail(node, f"the call of '{ast.unparse(callee)}' (not a cast, min, max, abs or a helper)")
        self._visit_all(node.args)

    def _local(self, call):
        if len(call.args) != 2 or call.keywords:
            self.fail(call, "local() without exactly (n, dtype)")
        n, dtype = call.args
        if not (isinstance(n, ast.Constant) and type(n.value) is int or isinstance(n, ast.Name)
                and n.id in self.constants and type(self.constants[n.id]) is int):
            self.fail(call, "local(n, ...) whose n is not an int literal or an int constant")
        if not (isinstance(dtype, ast.Attribute) and isinstance(dtype.value, ast.Name) and dtype.value.id == "np"
                and dtype.attr in CASTS):
            self.fail(call, f"local(..., dtype) whose dtype is not one of np.{', np.'.join(CASTS)}")
        self.uses_np = True


def _function_source(func, where):
    """``func``'s source, dedented, without decorators, and the file line of its first line."""
    if not inspect.isfunction(func):
        raise TypeError(f"{where}: an operator is made from a Python function, got {func!r}")
    if func.__name__ == "<lambda>":
        raise TypeError(f"{where}: an operator is made from a 'def' function, not a lambda")
    if func.__code__.co_freevars:
        raise TypeError(f"{where}: {func.__name__} reads the enclosing function's variables "
                        f"{func.__code__.co_freevars}; an operator's function reads only arguments, "
                        "locals and constants")
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as error:
        raise TypeError(f"{where}: the source of {func.__name__} cannot be read ({error}); define it in a file") \
            from None
    text = textwrap.dedent("".join(lines))
    tree = ast.parse(text)
    definition = tree.body[0]
    if not isinstance(definition, ast.FunctionDef):
        raise TypeError(f"{where}: {func.__name__} is not a 'def' function")
    skip = definition.lineno - 1  # decorators come first
    text = "".join(text.splitlines(keepends=True)[skip:])
    return text, first + skip, ast.parse(text)


class _Function:
    """One checked function: its name, source and file line."""

    __slots__ = ("func", "name", "source", "arity")

    def __init__(self, func, where, constants, helper_names, returns_pair):
        source, first, tree = _function_source(func, where)
        uses_np = _Checker(tree, f"{where} ({func.__name__})", first, inspect.getsourcefile(func), constants,
                           helper_names, returns_pair).check()
        if uses_np and func.__globals__.get("np") is not np:
            raise TypeError(f"{where}: {func.__name__} calls np.<cast> but its module does not 'import numpy as np'")
        self.func, self.name, self.source = func, func.__name__, source
        self.arity = len(tree.body[0].args.args)


class _Operator:
    """What every operator has: the function, its checked source, constants and helpers."""

    _kind = "operator"
    _arity = None  # the number of arguments the function takes (None: at least _min_arity)
    _min_arity = 1
    _returns_pair = False

    def __init__(self, func, name=None, *, constants=None, helpers=()):
        where = f"{type(self).__name__}({getattr(func, '__name__', func)!r})"
        constants = dict(constants or {})
        for key, value in constants.items():
            if not (isinstance(key, str) and key.isidentifier()):
                raise TypeError(f"{where}: constant names are identifiers, got {key!r}")
            if type(value) not in (int, float, bool):
                raise TypeError(f"{where}: the constant {key} must be an int, float or bool, got {value!r}")
        helpers = tuple(helpers)
        helper_names = {getattr(h, "__name__", None) for h in helpers}
        checked = tuple(_Function(h, where, constants, helper_names, False) for h in helpers)
        main = _Function(func, where, constants, helper_names, self._returns_pair)
        if self._arity is not None and main.arity != self._arity:
            raise TypeError(f"{where}: a {type(self).__name__} function takes {self._arity} arguments, "
                            f"{main.name} takes {main.arity}")
        if main.arity < self._min_arity:
            raise TypeError(f"{where}: a {type(self).__name__} function takes at least {self._min_arity} arguments, "
                            f"{main.name} takes {main.arity}")
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "name", name if name is not None else func.__name__)
        object.__setattr__(self, "constants", tuple(sorted(constants.items())))
        object.__setattr__(self, "helpers", helpers)
        object.__setattr__(self, "_main", main)
        object.__setattr__(self, "_checked_helpers", checked)
        object.__setattr__(self, "_types", {})

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def source(self):
        """The function's source text: dedented, without decorators."""
        return self._main.source

    @property
    def helper_sources(self):
        """The sources of the ``helpers``, in order (dedented, without decorators)."""
        return tuple(h.source for h in self._checked_helpers)

    @property
    def arity(self):
        """The number of arguments the function takes."""
        return self._main.arity

    def _key(self):
        return (type(self), self.func, self.name, self.constants, self.helpers)

    def __eq__(self, other):
        return other is self or type(other) is type(self) and self._key() == other._key()

    def __hash__(self):  # made once: backends look their compiled kernels up by operator on every call
        try:
            return self._hash
        except AttributeError:
            object.__setattr__(self, "_hash", hash(self._key()))
            return self._hash

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"

    def _typeof(self, argtypes):
        """numba's type of the function's result for numba argument types ``argtypes``."""
        if argtypes not in self._types:
            self._types[argtypes] = _numba_result(self, argtypes)
        return self._types[argtypes]


def program(op):
    """The Python text that defines ``op``'s function with its constants and helpers: the
    common part of every backend's compilation (numba's generated modules, the typing).

    Parameters
    ----------
    op : operator of this module

    Returns
    -------
    str
        ``import numpy as np``, ``local``, ``NAME = value`` for each constant, each helper's
        source and the function's source, in that order.

    Examples
    --------
    >>> print(program(UnaryOp(_doc_square)).splitlines()[-1])
        return x * x
    """
    lines = ["import numpy as np", "from gbgraph.backends.operators import local", ""]
    lines += [f"{key} = {value!r}" for key, value in op.constants]
    parts = ["\n".join(lines)] + [h.source for h in op._checked_helpers] + [op._main.source]
    return "\n\n".join(part.rstrip("\n") + "\n" for part in parts)


def _doc_square(x):
    return x * x


def _numba_result(op, argtypes):
    """Types ``op`` with numba's type inference on its program (nothing is compiled but
    the helpers it calls)."""
    import numba
    from numba.core import compiler, typed_passes

    register_local()
    from numba.core.registry import cpu_target

    namespace = {}
    exec(compile(program(op), f"<gbgraph operator {op.name}>", "exec"), namespace)
    for helper in op._checked_helpers:
        namespace[helper.name] = numba.njit(namespace[helper.name])
    typing, target = cpu_target.typing_context, cpu_target.target_context
    typing.refresh()  # registers local()'s overload
    target.refresh()
    try:
        ir = compiler.run_frontend(namespace[op._main.name])
        return typed_passes.type_inference_stage(typing, target, ir, argtypes, None).return_type
    except numba.core.errors.TypingError as error:
        raise TypingError(f"{op!r}: numba cannot type {op._main.name} for arguments {argtypes}: "
                        f"{str(error).splitlines()[0]}") from None


def _numba_scalar(dtype):
    import numba
    return numba.from_dtype(np.dtype(dtype))


def _numba_array(dtype):
    import numba
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), 1, "C")


def _dtype_of(numba_type, op, what):
    """The numpy dtype of a numba scalar type, ``TypeError`` for anything else."""
    import numba
    if isinstance(numba_type, numba.types.Boolean):
        return np.dtype(bool)
    if isinstance(numba_type, (numba.types.Integer, numba.types.Float)):
        return np.dtype(str(numba_type))
    raise TypingError(f"{op!r}: {what} has type {numba_type}; an operator returns a bool, int or float scalar")


class UnaryOp(_Operator):
    """``f(x) -> y``, for ``apply``.

    Parameters
    ----------
    func : function
        A module-level function of one argument in restricted Python (module docstring).
    name : str, optional
        Defaults to ``func.__name__``.
    constants : dict, optional
        Compile-time constants ``{NAME: int or float}`` the function reads.
    helpers : tuple of functions, optional
        Restricted-Python functions the function calls.

    Raises
    ------
    TypeError
        If ``func`` is not restricted Python (the message names the construct and line) or
        takes other than one argument.

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.backends.operators import _doc_square
    >>> sq = UnaryOp(_doc_square)
    >>> sq.result_dtype(np.int32), sq.result_dtype(np.float32)
    (dtype('int64'), dtype('float32'))
    """

    _kind = "unary"
    _arity = 1

    def result_dtype(self, x):
        """The dtype of ``func(x)`` for ``x`` of dtype ``x``: numba's type of the result.

        Raises
        ------
        TypeError
            If numba cannot type the function for this dtype, or it returns no scalar.
        """
        return _dtype_of(self._typeof((_numba_scalar(x),)), self, "the result")


class BinaryOp(_Operator):
    """``f(x, y) -> z``, for ``apply`` (bound ``left``/``right``), ``ewise_add``,
    ``ewise_mult`` and the multiply of a :class:`Semiring`.

    Parameters
    ----------
    func : function
        A module-level function of two arguments in restricted Python.
    name : str, optional
        Defaults to ``func.__name__``.
    constants : dict, optional
        Compile-time constants ``{NAME: int or float}``.
    helpers : tuple of functions, optional
        Restricted-Python functions the function calls.

    Raises
    ------
    TypeError
        If ``func`` is not restricted Python or takes other than two arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.backends.operators import _doc_absdiff
    >>> BinaryOp(_doc_absdiff).result_dtype(np.int32, np.float64)
    dtype('float64')
    """

    _kind = "binary"
    _arity = 2

    def result_dtype(self, x, y):
        """The dtype of ``func(x, y)`` for arguments of dtypes ``x`` and ``y`` (numba's type).

        Raises
        ------
        TypeError
            If numba cannot type the function for these dtypes, or it returns no scalar.
        """
        return _dtype_of(self._typeof((_numba_scalar(x), _numba_scalar(y))), self, "the result")


def _doc_absdiff(x, y):
    return abs(x - y)


class IndexUnaryOp(_Operator):
    """``f(x, i, j, thunk) -> y`` (GraphBLAS index-unary; ``j = 0`` for vectors), for
    ``apply_index`` and ``select`` (which keeps the entries whose result is true).

    With a tuple of full vectors as the verb's thunk, the function takes them as arrays,
    ``f(x, i, j, v1, v2, ...)``, and may read ``v1[i]``, ``v1[j]``.

    Parameters
    ----------
    func : function
        A module-level function of at least four arguments in restricted Python.
    name : str, optional
        Defaults to ``func.__name__``.
    constants : dict, optional
        Compile-time constants ``{NAME: int or float}``.
    helpers : tuple of functions, optional
        Restricted-Python functions the function calls.

    Raises
    ------
    TypeError
        If ``func`` is not restricted Python or takes fewer than four arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.backends.operators import _doc_upper_rank
    >>> IndexUnaryOp(_doc_upper_rank).result_dtype(np.float64, (np.uint32,))
    dtype('bool')
    """

    _kind = "indexunary"
    _min_arity = 4

    def result_dtype(self, x, thunk):
        """The dtype of ``func(x, i, j, thunk)``: ``thunk`` a dtype (a scalar thunk) or a
        tuple of dtypes (vector thunks, passed as arrays); ``i`` and ``j`` are int64.

        Raises
        ------
        TypeError
            If the number of thunks does not match the function's arguments, numba cannot
            type the function, or it returns no scalar.
        """
        if isinstance(thunk, tuple):
            if len(thunk) != self.arity - 3:
                raise TypeError(f"{self!r} reads {self.arity - 3} vectors, got {len(thunk)}")
            rest = tuple(_numba_array(t) for t in thunk)
        else:
            if self.arity != 4:
                raise TypeError(f"{self!r} reads {self.arity - 3} vectors, got a scalar thunk")
            rest = (_numba_scalar(thunk),)
        index = _numba_scalar(INDEX)
        return _dtype_of(self._typeof((_numba_scalar(x), index, index) + rest), self, "the result")


def _doc_upper_rank(x, i, j, rank):
    return rank[j] > rank[i]


class Monoid(BinaryOp):
    """An associative, commutative :class:`BinaryOp` over one dtype with an identity, for
    ``reduce``, ``reduce_rows``/``reduce_cols``, ``ewise_add`` and the add of a
    :class:`Semiring`.

    Operands are cast to the monoid's dtype first (GraphBLAS typecasting); the result has
    the monoid's dtype.

    Parameters
    ----------
    func : function
        A module-level function of two arguments in restricted Python, ``f(x, y) -> z``.
    identity : scalar
        ``f(identity, x) == x``; its dtype is the monoid's (``np.uint64(0)`` for packed keys;
        a Python int is int64, a float float64, a bool bool).
    name : str, optional
        Defaults to ``func.__name__``.
    constants : dict, optional
        Compile-time constants ``{NAME: int or float}``.
    helpers : tuple of functions, optional
        Restricted-Python functions the function calls.

    Raises
    ------
    TypeError
        If ``func`` is not restricted Python or ``identity`` is not a bool, int or float
        scalar; from :meth:`result_dtype` (first use) if numba types ``func`` on the
        identity's dtype as another dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.backends.operators import _doc_umin
    >>> m = Monoid(_doc_umin, np.uint64(0xFFFFFFFFFFFFFFFF))
    >>> m.dtype
    dtype('uint64')
    """

    _kind = "monoid"

    def __init__(self, func, identity, name=None, *, constants=None, helpers=()):
        super().__init__(func, name, constants=constants, helpers=helpers)
        if isinstance(identity, (bool, np.bool_)):
            dtype = np.dtype(bool)
        elif isinstance(identity, (int, float, np.integer, np.floating)):
            dtype = np.result_type(identity) if isinstance(identity, np.generic) else \
                np.dtype(np.int64 if isinstance(identity, int) else np.float64)
        else:
            raise TypeError(f"Monoid({self.name!r}): the identity must be a bool, int or float scalar, "
                            f"got {identity!r}")
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "identity", dtype.type(identity))

    def result_dtype(self, x=None, y=None):
        """The monoid's dtype (operands are cast to it), checked once to be numba's type of
        ``func`` on two operands of that dtype.

        Raises
        ------
        TypeError
            If numba types ``func`` on the monoid's dtype as another dtype.
        """
        typed = super().result_dtype(self.dtype, self.dtype)
        if typed != self.dtype:
            raise TypingError(f"Monoid({self.name!r}) over {self.dtype} returns {typed} (numba's type); "
                            f"cast the result to np.{self.dtype.type.__name__}")
        return self.dtype

    def _key(self):
        return super()._key() + (self.dtype, self.identity.item())


def _doc_umin(x, y):
    return min(x, y)


class Semiring:
    """The add monoid and multiply of ``mxv``/``vxm``/``mxm``: ``w(i) = add_k mul(A(i, k), u(k))``.

    Parameters
    ----------
    monoid : Monoid or str
        A :class:`Monoid`, or a monoid name of :data:`gbgraph.backends.base.MONOIDS`.
    multiply : BinaryOp or str
        A :class:`BinaryOp`, or a binary operator name of :data:`gbgraph.backends.base.BINARY_OPS`
        (its result: bool for the comparisons, int64 for ``pair``, else the operands' dtypes
        promoted).
    name : str, optional
        Defaults to ``<monoid name>_<multiply name>``.

    Raises
    ------
    TypeError
        If ``monoid`` or ``multiply`` is of another type, or neither is user-defined (use the
        semiring's name).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.backends.operators import _doc_umin
    >>> s = Semiring(Monoid(_doc_umin, np.uint64(0xFFFFFFFFFFFFFFFF)), "second")
    >>> s.name, s.result_dtype(np.bool_, np.uint64)
    ('_doc_umin_second', dtype('uint64'))
    """

    __slots__ = ("monoid", "multiply", "name")

    def __init__(self, monoid, multiply, name=None):
        if not isinstance(monoid, (Monoid, str)):
            raise TypeError(f"Semiring: monoid must be a Monoid or a monoid name, got {monoid!r}")
        if type(multiply) is not BinaryOp and not isinstance(multiply, str):
            raise TypeError(f"Semiring: multiply must be a BinaryOp or a binary operator name, got {multiply!r}")
        if isinstance(monoid, str) and isinstance(multiply, str):
            raise TypeError(f"Semiring({monoid!r}, {multiply!r}): neither is user-defined; "
                            f"pass the name '{monoid}_{multiply}' to the verb")
        object.__setattr__(self, "monoid", monoid)
        object.__setattr__(self, "multiply", multiply)
        object.__setattr__(self, "name", name if name is not None else
                           f"{getattr(monoid, 'name', monoid)}_{getattr(multiply, 'name', multiply)}")

    def __setattr__(self, name, value):
        raise AttributeError("Semiring is immutable")

    def __eq__(self, other):
        return type(other) is Semiring and (self.monoid, self.multiply, self.name) == \
            (other.monoid, other.multiply, other.name)

    def __hash__(self):
        return hash((Semiring, self.monoid, self.multiply, self.name))

    def __repr__(self):
        return f"Semiring({self.name!r})"

    def multiply_dtype(self, a, b):
        """The dtype of the multiply's result for entries of dtypes ``a`` (left) and ``b``.

        A named multiply gives the named semiring's type rules (:mod:`gbgraph.backends.base`);
        a :class:`BinaryOp` numba's type.
        """
        if isinstance(self.multiply, BinaryOp):
            return self.multiply.result_dtype(a, b)
        if self.multiply == "pair":
            return np.dtype(np.int64)
        if self.multiply in ("eq", "ne", "lt", "gt", "le", "ge"):
            return np.dtype(bool)
        return np.promote_types(a, b)

    def result_dtype(self, a, b):
        """The dtype of the product for operands of dtypes ``a`` (left) and ``b`` (right): the
        monoid's dtype for a :class:`Monoid`, else the multiply's result.

        Raises
        ------
        TypeError
            If numba cannot type the multiply for these dtypes.
        """
        if isinstance(self.monoid, Monoid):
            return self.monoid.dtype
        return self.multiply_dtype(a, b)


class RowOperator(_Operator):
    """A per-row accumulator for ``mxv(op, A, vectors)``:
    ``func(i, start, stop, cols, vals, v1, v2, ...) -> (value, present)``.

    ``cols[start:stop]`` and ``vals[start:stop]`` are row ``i``'s entries in column order
    (``vals`` of a pattern matrix: True); ``v1, v2, ...`` the verb's vectors as dense arrays
    (absent entries hold the operator's fill for that vector). The row gets the entry
    ``value`` when ``present`` is true.

    Parameters
    ----------
    func : function
        A module-level function of at least five arguments in restricted Python, returning
        ``value, present``.
    fill : scalar, None or tuple
        The value of a vector's absent entries, one per vector, or one for all of them;
        ``None``: the vector must be full (``ValueError`` from the verb otherwise).
    name : str, optional
        Defaults to ``func.__name__``.
    constants : dict, optional
        Compile-time constants ``{NAME: int or float}`` (e.g. a :func:`local` array's size).
    helpers : tuple of functions, optional
        Restricted-Python functions the function calls.

    Raises
    ------
    TypeError
        If ``func`` or a helper is not restricted Python, does not return ``value, present``,
        or ``fill`` has another length than the vectors or a non-scalar.

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.backends.operators import _doc_smallest_free
    >>> op = RowOperator(_doc_smallest_free, fill=-1, constants={"LIMIT": 64})
    >>> op.result_dtype(np.bool_, (np.int64,))
    dtype('int64')
    """

    _kind = "row"
    _min_arity = 5
    _returns_pair = True

    def __init__(self, func, *, fill, name=None, constants=None, helpers=()):
        super().__init__(func, name, constants=constants, helpers=helpers)
        count = self.arity - 5
        fills = tuple(fill) if isinstance(fill, (tuple, list)) else (fill,) * count
        if len(fills) != count:
            raise TypeError(f"{self!r} reads {count} vectors, got {len(fills)} fills {fill!r}")
        for value in fills:
            if value is not None and not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
                raise TypeError(f"{self!r}: a fill is a bool, int or float scalar or None, got {value!r}")
        object.__setattr__(self, "fill", fills)

    @property
    def n_vectors(self):
        """The number of vectors the function reads."""
        return self.arity - 5

    def _key(self):
        return super()._key() + (tuple(None if f is None else (type(f), f) for f in self.fill),)

    def result_dtype(self, values, vectors):
        """The dtype of ``value`` for matrix values of dtype ``values`` (bool for a pattern)
        and vectors of dtypes ``vectors`` (numba's type).

        Raises
        ------
        TypeError
            If the number of vectors does not match, numba cannot type the function, or it
            returns no ``(scalar, bool)`` pair.
        """
        import numba
        vectors = tuple(vectors)
        if len(vectors) != self.n_vectors:
            raise TypeError(f"{self!r} reads {self.n_vectors} vectors, got {len(vectors)}")
        index = _numba_scalar(INDEX)
        argtypes = (index, index, index, _numba_array(INDEX), _numba_array(values))
        argtypes += tuple(_numba_array(v) for v in vectors)
        result = self._typeof(argtypes)
        if not isinstance(result, numba.types.BaseTuple) or len(result) != 2:
            raise TypingError(f"{self!r} returns {result}, not a pair (value, present)")
        if not isinstance(result[1], numba.types.Boolean):
            raise TypingError(f"{self!r}: 'present' has type {result[1]}, not bool")
        return _dtype_of(result[0], self, "the value")


def _doc_smallest_free(i, start, stop, cols, vals, colors):
    seen = local(LIMIT, np.bool_)  # noqa: F821 (a constant of the operator)
    for p in range(start, stop):
        c = colors[cols[p]]
        if c >= 0 and c < LIMIT:  # noqa: F821
            seen[c] = True
    c = 0
    while c < LIMIT and seen[c]:  # noqa: F821
        c += 1
    return c, c < LIMIT  # noqa: F821


def _doc_free_bit(i, start, stop, cols, vals, words):
    word = np.uint64(0)
    for p in range(start, stop):
        word |= words[cols[p]]
    free = ~word
    return free & (~free + np.uint64(1)), free != np.uint64(0)


def accumulating(verb):
    """Decorator of a backend's verb: a :class:`BinaryOp` as its ``accum``, in the protocol's
    own verbs.

    GraphBLAS' accumulate, ``out<mask, replace> accum= T``, is ``Z = out ⊕accum T`` (the
    union: ``accum(out(i), T(i))`` where both have an entry, the one present elsewhere, as
    ``ewise_add`` computes it) and then ``out<mask, replace> = Z`` (cast to ``out``'s dtype).
    So the verb computes ``T<mask>`` without ``out``, then ``ewise_add`` and ``assign`` finish;
    a named ``accum`` goes to the verb itself.

    Parameters
    ----------
    verb : function
        A method of a backend taking the output controls as keywords.

    Returns
    -------
    function

    Raises
    ------
    ValueError
        (from the decorated verb) A BinaryOp ``accum`` without ``out``.
    """
    @functools.wraps(verb)
    def accumulated(self, *args, **kwargs):
        accum = kwargs.get("accum")
        if not isinstance(accum, BinaryOp):  # the common case first: one dict lookup
            return verb(self, *args, **kwargs)
        out, replace = kwargs.pop("out", None), kwargs.pop("replace", False)
        del kwargs["accum"]
        if out is None:
            raise ValueError(f"{verb.__name__}: accum={accum!r} needs out=, the object to accumulate into")
        t = verb(self, *args, **kwargs)  # T<mask>
        z = self.ewise_add(accum, out, t)  # Z = out ⊕accum T
        return self.assign(out, z, mask=kwargs.get("mask"), structure=kwargs.get("structure", True),
                           complement=kwargs.get("complement", False), replace=replace)

    return accumulated
