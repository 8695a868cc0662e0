"""The backend protocol: the GraphBLAS operations gbgraph's algorithms are written in.

An algorithm receives a :class:`Backend` and calls its verbs; it never touches
python-graphblas or CuPy. The verbs follow the GraphBLAS C API (and python-graphblas' names):
``w<mask> = A ⊕.⊗ u`` is ``be.mxv("min_second", A, u, mask=m)``. Each verb is one operation
that a GPU can run as one kernel; a masked ``mxv`` computes only the rows in its mask, which
is how the worklists of Kokkos Kernels appear in algebra.

Objects
-------
Matrices and vectors are the backend's own (``graphblas.Matrix``/``Vector`` on
``suitesparse``). Vectors are sparse: an entry may be absent. Index and value arrays cross
the protocol as arrays of the backend's array module ``be.xp`` (numpy or cupy), indices as
sorted int64.

Masks
-----
``mask=v`` restricts an output to the entries of ``v`` (a *structural* mask, GraphBLAS
``v.S``); ``structure=False`` keeps only entries whose value is true (``v.V``);
``complement=True`` inverts either (``~v.S``, ``~v.V``). Where an operation writes into an
existing vector (``out=``, :meth:`Backend.assign`), entries outside the mask are kept.

Types and operators
-------------------
dtypes are numpy names: ``"bool"``, ``"int32"``, ``"int64"``, ``"uint64"``, ``"float64"``. Operators are
GraphBLAS names in lower case: semirings ``<monoid>_<multiply>`` (:data:`SEMIRINGS`), binary
operators (:data:`BINARY_OPS`), select operators (:data:`SELECT_OPS`) and monoids
(:data:`MONOIDS`). Scalars are converted to the dtype of the vector they meet.
"""

import abc

__all__ = ["Backend", "SEMIRINGS", "BINARY_OPS", "SELECT_OPS", "MONOIDS", "DTYPES"]

DTYPES = ("bool", "int32", "int64", "uint64", "float64")
SEMIRINGS = ("min_second", "max_second", "any_second", "any_pair", "plus_pair", "plus_times")
BINARY_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "min", "max", "plus", "minus", "times",
              "first", "second", "pair", "land", "lor")
SELECT_OPS = ("valueeq", "valuene", "valuelt", "valuele", "valuegt", "valuege")
MONOIDS = ("min", "max", "plus", "any", "land", "lor")


class Backend(abc.ABC):
    """The operations every backend provides; see the module docstring for conventions."""

    #: Registry name, e.g. ``"suitesparse"``.
    name = None
    #: Array module of index and value arrays (numpy or cupy).
    xp = None

    # ---- containers --------------------------------------------------------------------

    @abc.abstractmethod
    def matrix(self, indptr, indices, *, ncols=None, values=None, copy=True):
        """Matrix from CSR arrays with columns sorted within rows.

        ``values=None`` gives an iso-valued boolean pattern. With ``copy=False`` the backend
        may take the arrays over; the caller must not use them afterwards.
        """

    @abc.abstractmethod
    def vector(self, indices, values, size, *, copy=True):
        """Sparse vector from sorted, unique ``indices`` and ``values`` (array or scalar).

        With ``copy=False`` the backend may take the arrays over.
        """

    @abc.abstractmethod
    def full(self, size, value, dtype):
        """Vector of ``size`` entries, all equal to ``value``."""

    @abc.abstractmethod
    def nvals(self, v):
        """Number of entries of ``v`` (an int)."""

    @abc.abstractmethod
    def indices(self, v):
        """Sorted int64 array of the positions of ``v``'s entries."""

    @abc.abstractmethod
    def values(self, v):
        """Array of ``v``'s values, aligned with :meth:`indices`."""

    # ---- operations --------------------------------------------------------------------

    @abc.abstractmethod
    def mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None):
        """``w<mask> = A ⊕.⊗ u``; writes into ``out`` when given, else returns a new vector."""

    @abc.abstractmethod
    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False):
        """``w<mask> = u .* v``: ``op`` on the intersection of the entries."""

    @abc.abstractmethod
    def select(self, op, u, thunk, *, mask=None, structure=True, complement=False):
        """``w<mask> = u`` restricted to the entries where ``op(value, thunk)`` holds."""

    @abc.abstractmethod
    def assign(self, w, value, *, mask, structure=True, complement=False):
        """``w<mask> = value`` in place: a vector's entries, or a scalar broadcast."""

    # ---- derived -----------------------------------------------------------------------

    def adjacency(self, graph, *, closed=False):
        """The backend matrix of a :class:`~gbgraph.graph.Graph`, cached on the graph.

        ``closed=True`` gives the pattern of A + I: each row is the closed neighbourhood
        {v} ∪ N(v), which Kokkos Kernels' MIS-2 minimises over.
        """
        if closed:
            return graph.cached((self.name, "closed"), lambda: self.matrix(
                *graph.closed_csr(self.xp, self.index_dtype), copy=False))
        return graph.cached((self.name, "pattern"), lambda: self.matrix(
            self.xp.asarray(graph.indptr), self.xp.asarray(graph.indices)))

    #: dtype of the index arrays :meth:`matrix` adopts without a copy.
    index_dtype = "int64"

    def __repr__(self):
        return f"<gbgraph backend {self.name!r}>"
