"""Parallel regions above a work threshold only: each parallel kernel has a serial twin.

A ``prange`` loop pays for itself only when its work is well above what a parallel region
costs, and a parallel region costs more than its launch: it ends when its slowest thread
does, so on a machine where another process runs, a region waits for a thread the operating
system has descheduled (a time slice, milliseconds), whatever the region's length. And a
``parallel=True`` kernel takes numba 3-8 times longer to compile than the same loop run in
order (the parfor passes, a gufunc per loop): most of a first use's minute of compiling.

So each parallel kernel is wrapped in a :class:`Kernel` that runs its serial twin (the same
Python function compiled without ``parallel``, ``prange`` then being ``range``) unless the
call's work, counted in stored entries read, is at least :data:`PARALLEL_WORK` and numba may
use more than one thread. Each twin is compiled on the first call that needs it. Both
twins give the same result: each parallel loop writes only its own slots (kernels/__init__.py).

The twin's globals map every compiled callee that runs a parallel loop, directly or through
its own callees, to its serial twin, so a serial call compiles no parfor at all. It is cached
by numba under the kernel's name with ``_serial`` appended.
"""

import types

import numba
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

__all__ = ["PARALLEL_WORK", "Kernel", "parallel_above", "serial_twin", "row_work"]

#: Entries a call must read before it runs as a parallel region: about 5 ms of work for one
#: thread (1.3 ns an entry in the pull product, more in the fused verbs), where waiting for
#: one descheduled thread for a time slice at most doubles the region's time (measurements in
#: docs/backends.md, "Threads"; benchmarks/bench_first_use.py).
PARALLEL_WORK = 1 << 22

_TWINS = {}


def _runs_parallel(dispatcher, seen=None):
    """Whether a compiled function runs a parallel loop itself or in a compiled callee."""
    seen = set() if seen is None else seen
    if id(dispatcher) in seen:
        return False
    seen.add(id(dispatcher))
    if dispatcher.targetoptions.get("parallel"):
        return True
    return any(_runs_parallel(callee, seen) for callee in _callees(dispatcher))


def _callees(dispatcher):
    """The compiled functions a compiled function names among its globals."""
    py_func = dispatcher.py_func
    names = _names(py_func.__code__)
    return [value for name, value in py_func.__globals__.items()
            if name in names and isinstance(value, CPUDispatcher)]


def _names(code):
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names(constant)
    return names


def serial_twin(dispatcher):
    """The compiled function ``dispatcher`` without parallel loops, made once.

    Parameters
    ----------
    dispatcher : numba dispatcher
        A function decorated with ``numba.njit``.

    Returns
    -------
    numba dispatcher
        ``dispatcher`` itself when neither it nor a compiled callee runs a parallel loop; else
        the same Python code compiled with ``parallel=False``, its globals' parallel callees
        replaced by their serial twins, cached under ``<name>_serial``.

    Examples
    --------
    >>> import numba, numpy as np
    >>> @numba.njit(parallel=True)
    ... def total(x):
    ...     s = 0.0
    ...     for i in numba.prange(x.size):
    ...         s += x[i]
    ...     return s
    >>> serial_twin(total)(np.ones(4)), serial_twin(total).targetoptions["parallel"]
    (4.0, False)
    """
    if not _runs_parallel(dispatcher):
        return dispatcher
    key = id(dispatcher)
    if key not in _TWINS:
        py_func = dispatcher.py_func
        namespace = dict(py_func.__globals__)
        for callee in _callees(dispatcher):
            namespace[callee.py_func.__name__] = serial_twin(callee)
        twin = types.FunctionType(py_func.__code__, namespace, py_func.__name__ + "_serial", py_func.__defaults__,
                                  py_func.__closure__)
        twin.__qualname__ = py_func.__qualname__ + "_serial"
        twin.__doc__ = py_func.__doc__
        options = {name: value for name, value in dispatcher.targetoptions.items() if name != "nopython"}
        options["parallel"] = False
        cached = not isinstance(dispatcher._cache, NullCache)
        _TWINS[key] = numba.njit(cache=cached, **options)(twin)
    return _TWINS[key]


class Kernel:
    """A parallel kernel that runs as a parallel region only when its work is large.

    Parameters
    ----------
    dispatcher : numba dispatcher
        The kernel, compiled with ``parallel=True``.
    work : callable
        ``work(*arguments)``: the call's work, in entries read, from the arguments named
        ``names``.
    *names : str
        Parameters of the kernel.

    Examples
    --------
    >>> import numba, numpy as np
    >>> @numba.njit(parallel=True)
    ... def double(x, out):
    ...     for i in numba.prange(x.size):
    ...         out[i] = 2 * x[i]
    >>> twice = Kernel(double, np.size, "x")
    >>> out = np.empty(3)
    >>> twice(np.arange(3.0), out)
    >>> out
    array([0., 2., 4.])
    """

    def __init__(self, dispatcher, work, *names):
        self.parallel = dispatcher
        self._serial = None  # made on first use, when the module defines every callee
        self.py_func = dispatcher.py_func
        self.__name__ = self.py_func.__name__
        self.__doc__ = self.py_func.__doc__
        parameters = self.py_func.__code__.co_varnames[:self.py_func.__code__.co_argcount]
        self._work = work
        self._named = tuple((parameters.index(name), name) for name in names)

    def __call__(self, *args, **kwargs):
        return self.choose(*args, **kwargs)(*args, **kwargs)

    def choose(self, *args, **kwargs):
        """The twin that runs these arguments: the parallel one for work of at least
        :data:`PARALLEL_WORK` entries when numba may use more than one thread."""
        work = self._work(*[args[p] if p < len(args) else kwargs[name] for p, name in self._named])
        # the work first: numba.get_num_threads() takes 4.6 us (a lock, the threading layer's
        # check), a tenth of a small kernel's call, and most calls stay below the threshold
        if work < PARALLEL_WORK or numba.get_num_threads() == 1:
            return self.serial
        return self.parallel

    @property
    def serial(self):
        """The serial twin (:func:`serial_twin`)."""
        if self._serial is None:
            self._serial = serial_twin(self.parallel)
        return self._serial

    def __repr__(self):
        return f"<gbgraph kernel {self.__name__!r}: a parallel region from {PARALLEL_WORK} entries>"


def parallel_above(work, *names):
    """Decorator of a parallel kernel: ``Kernel(dispatcher, work, *names)``.

    Examples
    --------
    >>> import numba, numpy as np
    >>> @parallel_above(np.size, "x")
    ... @numba.njit(parallel=True)
    ... def norm1(x):
    ...     s = 0.0
    ...     for i in numba.prange(x.size):
    ...         s += abs(x[i])
    ...     return s
    >>> float(norm1(np.array([1.0, -2.0])))
    3.0
    """
    return lambda dispatcher: Kernel(dispatcher, work, *names)


def row_work(indptr, rows, all_rows=False):
    """The entries a pass over ``rows`` of a CSR reads (every row when ``all_rows``), taking
    the listed rows to have the average row's length: O(1), where summing their lengths
    would cost a pass over the rows."""
    n = indptr.size - 1
    count = n if all_rows else rows.size
    return count * int(indptr[-1]) // max(n, 1)

