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

Output controls
---------------
Every verb that makes a vector or matrix takes the same keywords (GraphBLAS'
``w<mask, replace> accum= result``):

``mask=None, structure=True, complement=False``
    ``mask=v`` restricts the output to the positions of ``v``'s entries (a *structural* mask,
    GraphBLAS ``v.S``); ``structure=False`` to those whose value is true (``v.V``);
    ``complement=True`` inverts either (``~v.S``, ``~v.V``). A masked product computes only the
    rows in its mask.
``out=None``
    Write into this existing vector or matrix (cast to its dtype) instead of a new one.
    Positions outside the mask keep ``out``'s entries; inside, ``out`` takes the result's
    entries, and loses those where the result has none.
``accum=None``
    A name of :data:`BINARY_OPS`: inside the mask, ``out(i) = accum(out(i), result(i))``
    where both have an entry, the one present elsewhere (nothing is deleted). Needs ``out``:
    ``ValueError`` without it.
``replace=False``
    GrB_REPLACE: with ``out``, entries of ``out`` outside the mask are deleted.

Without ``out``, a new object holds the result under the mask.

Types and operators
-------------------
dtypes are numpy names (:data:`DTYPES`): ``bool``, ``int32``, ``int64``, ``uint32``,
``uint64``, ``float32``, ``float64``. Operators are GraphBLAS names in lower case: semirings
``<monoid>_<multiply>`` (:data:`SEMIRINGS`: every monoid of :data:`MONOIDS` with every
multiply of :data:`BINARY_OPS`, and SuiteSparse's positional ``min_secondi``,
``max_secondi``, ``any_secondi``, whose multiply yields the column index of the matrix entry),
binary operators (:data:`BINARY_OPS`; ``div`` is GrB_DIV: C integer division for integers,
with SuiteSparse's results for a zero divisor, IEEE division for floats), unary operators
(:data:`UNARY_OPS`), select predicates (:data:`SELECT_OPS`), index-unary operators
(:data:`INDEX_UNARY_OPS`) and monoids. A name outside these lists raises ``ValueError``
listing the known ones. A listed name the backend cannot run on the operands' dtypes (python-graphblas has no
``plus`` on bool, no ``bor`` on floats) raises ``NotImplementedError`` naming the verb, the
operator, the dtypes and the backend.

The result dtype of every verb is python-graphblas' own (the oracle of the conformance suite,
tests/test_conformance.py), the same on every backend:

=====================================  ==================================================
call                                   result dtype
=====================================  ==================================================
two operands meet (``mxv``, ewise)     the operands' types unified: numpy's promotion
                                       (int64 with uint64 gives float64, bool gives way)
``mxv``/``vxm``/``mxm``                the multiply's result on the unified type: bool for
                                       ``eq`` ... ``ge`` (so ``plus_eq`` has none), int64
                                       for the positional ones, else the unified type
``ewise_add``/``ewise_mult``           ``op``'s result on the unified type (bool for the
                                       comparisons)
``apply`` unary, ``select``,           the operand's dtype
``reduce``, ``reduce_rows``/``_cols``
``apply`` with ``left``/``right``      the operand's type unified with the scalar's: a
                                       Python bool is bool, an int int64, a float float64,
                                       a numpy scalar its dtype (``apply("div", d,
                                       left=0.85)`` on int64 is float64)
``apply_index`` (a name)               int64
``out=`` given                         ``out``'s dtype (the result is cast)
=====================================  ==================================================
"""

import abc
import contextlib


__all__ = ["Backend", "DTYPES", "MONOIDS", "BINARY_OPS", "UNARY_OPS", "SEMIRINGS", "POSITIONAL_SEMIRINGS",
           "SELECT_OPS", "INDEX_UNARY_OPS"]

#: The dtypes of vectors and matrices, numpy names.
DTYPES = ("bool", "int32", "int64", "uint32", "uint64", "float32", "float64")
#: The monoids of reductions and semirings (``any``: one of the values, the backend's choice).
MONOIDS = ("plus", "times", "min", "max", "any", "lor", "land", "lxor", "bor", "band", "bxor")
#: The binary operators of element-wise verbs, bound-scalar ``apply``, ``accum`` and ``dup``.
BINARY_OPS = ("first", "second", "pair", "plus", "minus", "rminus", "times", "div", "min", "max",
              "eq", "ne", "lt", "gt", "le", "ge", "land", "lor", "lxor", "band", "bor", "bxor")
#: The unary operators of ``apply``.
UNARY_OPS = ("identity", "ainv", "minv", "abs", "one", "lnot")
#: SuiteSparse's positional semirings: the multiply gives the row (``firsti``) or column
#: (``secondi``, ``firstj``) index of the matrix entry, as int64.
POSITIONAL_SEMIRINGS = ("min_secondi", "max_secondi", "any_secondi")
#: Every ``<monoid>_<multiply>`` of :data:`MONOIDS` and :data:`BINARY_OPS`, and the
#: positional ones.
SEMIRINGS = tuple(f"{monoid}_{multiply}" for monoid in MONOIDS for multiply in BINARY_OPS) + POSITIONAL_SEMIRINGS
#: The predicates of ``select``: on values (against the thunk) and on positions.
SELECT_OPS = ("valueeq", "valuene", "valuelt", "valuele", "valuegt", "valuege",
              "offdiag", "diag", "tril", "triu", "rowle", "rowgt", "colle", "colgt")
#: The named index-unary operators of ``apply_index``: the row, column or diagonal index
#: of each entry, plus the thunk.
INDEX_UNARY_OPS = ("rowindex", "colindex", "diagindex")

def check_accum(verb, out, accum):
    """``accum`` accumulates into ``out``: without it the call is a ValueError (every backend
    checks this first, before any typing)."""
    if accum is not None and out is None:
        raise ValueError(f"{verb}: accum={accum!r} needs out=, the object to accumulate into")


def stalled(before, left, stall):
    """:meth:`Backend.iterate`'s ``stall`` test: the last round took fewer than ``1/stall`` of
    the ``left`` entries it left out of the ``before`` it had (never before a first round,
    nor without ``stall``)."""
    return stall is not None and before is not None and (before - left) * stall < left


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
        """Vector with an entry at each of its ``size`` positions: ``w(i) = value``, or
        ``w(i) = value[i]`` for an array of length ``size`` (GraphBLAS' full vector from
        dense values; the backend may keep the array, which the caller then leaves alone)."""

    @abc.abstractmethod
    def nvals(self, x):
        """Number of entries of a vector or matrix (an int)."""

    @abc.abstractmethod
    def to_csr(self, A):
        """``(indptr, indices, values)`` arrays of a matrix, columns sorted within rows."""

    @abc.abstractmethod
    def indices(self, v):
        """Sorted int64 array of the positions of ``v``'s entries."""

    @abc.abstractmethod
    def values(self, v):
        """Array of ``v``'s values, aligned with :meth:`indices`."""

    # ---- operations --------------------------------------------------------------------
    # Every verb that makes a vector or matrix takes the output controls of the module
    # docstring: mask, structure, complement, out, accum, replace.

    @abc.abstractmethod
    def mxv(self, semiring, A, u, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False, order=None, push=None):
        """Matrix-vector product: ``w<mask> accum= A ⊕.⊗ u``, or a row operator on each row.

        ``w(i) = ⊕_j A(i, j) ⊗ u(j)`` over the j where both ``A(i, j)`` and ``u(j)`` are
        present; row i has no entry when there is no such j. A masked product computes only
        the rows in the mask (the worklist of a push-pull algorithm).

        With a :class:`~gbgraph.backends.operators.Semiring` (a user-defined monoid or
        multiply), the product is the same, each multiply's result cast to the monoid's dtype.

        With a :class:`~gbgraph.backends.operators.RowOperator` ``op``, ``u`` is a vector or a
        tuple of vectors ``(v1, v2, ...)`` and ``w<mask>(i) = value`` where
        ``value, present = op(i, start, stop, cols, vals, v1, v2, ...)`` is present: row i's
        entries are ``cols[start:stop]``, ``vals[start:stop]`` (True for a pattern), the
        vectors are passed dense (absent entries hold ``op.fill``; a fill of None needs a full
        vector). Rows run in parallel, unless ``order`` is given: then they run one after
        another by decreasing ``order(i)`` (equal values: lower i first), and each present
        value is written into (a copy of) ``v1`` at i before the next row runs, a
        Gauss-Seidel sweep such as sequential greedy coloring. A vector is read at i (size
        ``nrows``) or at a column (size ``ncols``).

        With ``push`` as well (an ordered sweep that pushes), row i's present value x is
        still ``w(i)``, but instead of ``v1(i) = x`` the sweep combines x into every column
        of the row: ``v1(j) = v1(j) ⊕ x`` for each entry ``A(i, j)`` (``v1 ⊕= A(i, :)ᵀ x``,
        x cast to v1's dtype, v1 of size ``ncols``), which later rows read. Sequential
        distance-2 coloring is one: over closed neighbourhoods ("nets"), a vertex ORs its
        nets' color words into its own and pushes the bit it takes into each of them, so
        that a sweep costs the sum of the rows' lengths, not of their squares.

        Parameters
        ----------
        semiring : str, Semiring or RowOperator
            A name of :data:`SEMIRINGS`, ``<monoid>_<multiply>``, or a user-defined operator.
        A : matrix
            ``nrows x ncols``.
        u : vector, or tuple of vectors for a RowOperator
            Of size ``ncols`` (``nrows`` with ``transpose``).
        transpose : bool
            Multiply by ``Aᵀ`` (GrB_INP0 transposed): ``w(j) = ⊕_i A(i, j) ⊗ u(i)``.
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).
        order : vector, optional
            A RowOperator's sequential order: an entry at every row computed.
        push : str or Monoid, optional
            With ``order``: the monoid each row's value is pushed into ``v1`` with, a name
            (``"plus"``, ``"times"``, ``"min"``, ``"max"``, ``"lor"``, ``"land"``, ``"lxor"``,
            ``"bor"``, ``"band"``, ``"bxor"``) or a
            :class:`~gbgraph.backends.operators.Monoid` (values cast to its dtype).

        Returns
        -------
        vector
            ``out`` when given, else a new vector of size ``nrows`` (``ncols`` with
            ``transpose``); dtype: the multiply's result type on the unified operand types
            (module docstring), a user Semiring's monoid's dtype (with a named monoid, the
            multiply's result type), a RowOperator's ``value`` as numba types it on the
            matrix's and vectors' dtypes; ``out``'s own with ``out``.

        Raises
        ------
        ValueError
            An unknown semiring name, ``accum`` without ``out``, ``order`` without a
            RowOperator or without an entry at a row computed, a vector with absent entries
            where the RowOperator's fill is None, or a wrong number or size of vectors;
            ``push`` without a RowOperator and ``order``, an unknown push monoid name, or a
            first vector not of size ``ncols``.
        TypeError
            A user operator numba cannot type on these dtypes; a ``push`` that is neither a
            name nor a Monoid.
        NotImplementedError
            The backend has no typed instance of the semiring for these dtypes (``plus_times``
            on bool), naming verb, semiring, dtypes and backend; a push monoid not defined on
            v1's dtype (``bor`` on floats); ``push`` on the mpi backend, whose ordered
            sweeps run rank by rank.

        Examples
        --------
        >>> import numpy as np, gbgraph as gg
        >>> from gbgraph.backends.operators import RowOperator, _doc_smallest_free
        >>> be = gg.backend("numba")
        >>> A = be.matrix(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]))  # a path 0-1-2
        >>> first_fit = RowOperator(_doc_smallest_free, fill=-1, constants={"LIMIT": 64})
        >>> c = be.mxv(first_fit, A, be.full(3, -1, "int64"), order=be.full(3, 0, "int64"))
        >>> be.values(c)  # greedy coloring in index order
        array([0, 1, 0])
        >>> from gbgraph.backends.operators import _doc_free_bit
        >>> closed = be.matrix(np.array([0, 2, 5, 7]), np.array([0, 1, 0, 1, 2, 1, 2]))  # A + I
        >>> bits = be.mxv(RowOperator(_doc_free_bit, fill=0), closed, be.full(3, 0, "uint64"),
        ...               order=be.full(3, 0, "int64"), push="bor")  # distance-2 greedy, as bits
        >>> be.values(bits)
        array([1, 2, 4], dtype=uint64)
        """

    @abc.abstractmethod
    def vxm(self, semiring, u, A, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False):
        """Vector-matrix product: ``w<mask> accum= u ⊕.⊗ A``.

        ``w(j) = ⊕_i u(i) ⊗ A(i, j)``: row i of A scattered for each entry u(i) (a push). For
        a symmetric pattern this equals :meth:`mxv` with the multiply's operands swapped, but
        it costs the entries of A in ``u``'s rows, not a pass over ``mask``'s or all rows:
        the product to take from a small set of changed vertices.

        Parameters
        ----------
        semiring : str or Semiring
            A name of :data:`SEMIRINGS`, or a user-defined
            :class:`~gbgraph.backends.operators.Semiring` (typed as in :meth:`mxv`); the
            multiply's first operand is ``u``'s value.
        u : vector
            Of size ``nrows`` (``ncols`` with ``transpose``).
        A : matrix
        transpose : bool
            Multiply by ``Aᵀ`` (GrB_INP1 transposed).
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector
            Of size ``ncols`` (``nrows`` with ``transpose``), typed as in :meth:`mxv`.

        Raises
        ------
        ValueError
            An unknown semiring name, or ``accum`` without ``out``.
        NotImplementedError
            No typed instance of the semiring for these dtypes on this backend.
        """

    @abc.abstractmethod
    def mxm(self, semiring, A, B, *, transpose_a=False, transpose_b=False, mask=None, structure=True,
            complement=False, out=None, accum=None, replace=False):
        """Matrix-matrix product: ``C<mask> accum= A ⊕.⊗ B``.

        ``C(i, j) = ⊕_k A(i, k) ⊗ B(k, j)`` over the k where both are present.

        Parameters
        ----------
        semiring : str or Semiring
            A name of :data:`SEMIRINGS`, or a user-defined
            :class:`~gbgraph.backends.operators.Semiring` (typed as in :meth:`mxv`; each
            output reduces its terms in the order of the inner index).
        A, B : matrix
        transpose_a, transpose_b : bool
            Use ``Aᵀ`` / ``Bᵀ`` (GrB_INP0 / GrB_INP1 transposed).
        mask, structure, complement, out, accum, replace
            Output controls (module docstring); the mask is a matrix.

        Returns
        -------
        matrix
            Typed as in :meth:`mxv`.

        Raises
        ------
        ValueError
            An unknown semiring name, or ``accum`` without ``out``.
        NotImplementedError
            No typed instance of the semiring for these dtypes on this backend.
        """

    @abc.abstractmethod
    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        """``C<mask> accum= Aᵀ``.

        Parameters
        ----------
        A : matrix
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        matrix
            ``A``'s dtype (``out``'s with ``out``).

        Raises
        ------
        ValueError
            ``accum`` without ``out``.
        """

    @abc.abstractmethod
    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        """Element-wise multiply: ``w<mask> accum= u .* v``, ``op`` on the intersection of the
        entries.

        ``w(i) = op(u(i), v(i))`` where both have an entry; nowhere else.

        Parameters
        ----------
        op : str, BinaryOp or Monoid
            A name of :data:`BINARY_OPS`, or a user-defined
            :class:`~gbgraph.backends.operators.BinaryOp` (result: numba's type on the
            operands' dtypes) or :class:`~gbgraph.backends.operators.Monoid` (operands cast
            to its dtype).
        u, v : vector or matrix
            Both vectors of one size or both matrices of one shape.
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector or matrix
            dtype: ``op``'s result on the unified dtype of ``u`` and ``v`` (bool for the
            comparisons).

        Raises
        ------
        ValueError
            An unknown op, or ``accum`` without ``out``.
        NotImplementedError
            No typed ``op`` for these dtypes on this backend (bitwise ops on floats).
        """

    @abc.abstractmethod
    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        """Element-wise add: ``w<mask> accum= u + v``, ``op`` on the union of the entries.

        ``w(i) = op(u(i), v(i))`` where both have an entry, the lone value (cast to the
        result's dtype) where one has.

        Parameters
        ----------
        op : str, BinaryOp or Monoid
            A name of :data:`BINARY_OPS`, or a user-defined
            :class:`~gbgraph.backends.operators.BinaryOp` (result: numba's type on the
            operands' dtypes) or :class:`~gbgraph.backends.operators.Monoid` (operands cast
            to its dtype).
        u, v : vector or matrix
            Both vectors of one size or both matrices of one shape.
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector or matrix
            Typed as in :meth:`ewise_mult`.

        Raises
        ------
        ValueError
            An unknown op, or ``accum`` without ``out``.
        NotImplementedError
            No typed ``op`` for these dtypes on this backend.
        """

    @abc.abstractmethod
    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        """``w<mask> accum= op(u)`` for a unary ``op``, or ``op(left, u)`` / ``op(u, right)``
        for a binary one with a bound scalar, on each entry of ``u``.

        Parameters
        ----------
        op : str, UnaryOp or BinaryOp
            A name of :data:`UNARY_OPS`, or of :data:`BINARY_OPS` with ``left`` or ``right``;
            or a user-defined :class:`~gbgraph.backends.operators.UnaryOp`, or
            :class:`~gbgraph.backends.operators.BinaryOp` with ``left`` or ``right``, whose
            result dtype is numba's type of the function on the operands' dtypes.
        u : vector or matrix
        left, right : scalar, optional
            The bound first or second operand: a Python bool, int or float, or a numpy
            scalar (``be.apply("div", degrees, left=0.85)`` is ``0.85 / d(i)``).
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector or matrix
            dtype: ``u``'s for a unary op; for a bound one, ``op``'s result on ``u``'s dtype
            unified with the scalar's (a Python int is int64, a float float64, a bool bool).

        Raises
        ------
        ValueError
            An unknown op, or ``accum`` without ``out``.
        NotImplementedError
            No typed ``op`` for these dtypes on this backend.
        """

    @abc.abstractmethod
    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
        """``w<mask> accum= u`` restricted to the entries where the predicate ``op`` holds.

        The value predicates ``valueeq`` ... ``valuege`` compare the entry's value with
        ``thunk`` (``u(i) > thunk``); ``offdiag``, ``diag``, ``tril`` and ``triu`` keep
        matrix entries by their diagonal ``j - i`` against ``thunk`` (default 0); ``rowle``
        / ``rowgt`` keep the rows ``i <= thunk`` / ``i > thunk`` (a vector's positions) and
        ``colle`` / ``colgt`` the columns.

        A user-defined :class:`~gbgraph.backends.operators.IndexUnaryOp` ``op`` keeps the
        entries where ``op(x, i, j, thunk)`` is true (``j = 0`` for a vector); with a tuple
        of full vectors as ``thunk``, ``op(x, i, j, v1, v2, ...)`` reads them as arrays at i
        and at j (``rank[j] > rank[i]``).

        Parameters
        ----------
        op : str or IndexUnaryOp
            A name of :data:`SELECT_OPS`, or a user-defined index-unary operator.
        u : vector or matrix
        thunk : scalar or tuple of vectors, optional
            Typed as a bound scalar of :meth:`apply`; vectors (an IndexUnaryOp's) must be
            full, of ``u``'s size (a square matrix's ``nrows``).
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector or matrix
            ``u``'s dtype.

        Raises
        ------
        ValueError
            An unknown op, or ``accum`` without ``out``.
        NotImplementedError
            The predicate has no typed instance for ``u``'s and ``thunk``'s dtypes here.
        """

    @abc.abstractmethod
    def reduce(self, u, monoid):
        """Reduce all entries of a vector or a matrix to a scalar: ``s = ⊕_i u(i)``.

        Parameters
        ----------
        u : vector or matrix
        monoid : str or Monoid
            A name of :data:`MONOIDS` (``any`` returns one of the entries), or a user-defined
            :class:`~gbgraph.backends.operators.Monoid`, which folds the values cast to its
            dtype in the order of their positions.

        Returns
        -------
        numpy scalar or None
            Of ``u``'s dtype (a Monoid's dtype); None when ``u`` has no entry.

        Raises
        ------
        ValueError
            An unknown monoid.
        NotImplementedError
            The monoid has no typed instance for ``u``'s dtype (``plus`` on bool, ``bor``
            on floats) here.
        """

    @abc.abstractmethod
    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        """``w<mask> accum= ⊕_j A(:, j)``: each row reduced to one value.

        Parameters
        ----------
        A : matrix
        monoid : str or Monoid
            A name of :data:`MONOIDS`, or a user-defined
            :class:`~gbgraph.backends.operators.Monoid`.
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector
            Of size ``nrows``, ``A``'s dtype (a Monoid's dtype), an entry for each non-empty
            row.

        Raises
        ------
        ValueError
            An unknown monoid, or ``accum`` without ``out``.
        NotImplementedError
            The monoid has no typed instance for ``A``'s dtype here.
        """

    def reduce_cols(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        """``w<mask> accum= ⊕_i A(i, :)``: each column reduced to one value.

        The default reduces the rows of :meth:`transpose`.

        Parameters
        ----------
        A : matrix
        monoid : str
            A name of :data:`MONOIDS`.
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector
            Of size ``ncols``, ``A``'s dtype, an entry for each non-empty column.

        Raises
        ------
        ValueError
            An unknown monoid, or ``accum`` without ``out``.
        NotImplementedError
            The monoid has no typed instance for ``A``'s dtype here.
        """
        controls = _controls(mask, structure, complement, out, accum, replace)
        return self.reduce_rows(self.transpose(A), monoid, **controls)

    @abc.abstractmethod
    def extract(self, u, indices, cols=None):
        """Gather: ``w = u(indices)``; for a matrix ``C = A(indices, :)`` or, with ``cols``,
        ``C = A(indices, cols)``.

        ``w(k) = u(indices[k])`` where ``u`` has that entry (indices may repeat); a matrix
        keeps the rows (and columns) listed, in that order.

        Parameters
        ----------
        u : vector or matrix
        indices : array of int
            Positions (rows) to gather, each below the size (``nrows``).
        cols : array of int, optional
            A matrix's columns to keep, in that order; None: every column. Not for vectors.

        Returns
        -------
        vector or matrix
            ``u``'s dtype, of size ``len(indices)`` (shape ``len(indices) x len(cols)``).

        Raises
        ------
        ValueError
            ``cols`` given with a vector.
        """

    @abc.abstractmethod
    def assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        """``w<mask, replace> accum= value`` in place, on every position of ``w``.

        Without ``accum``, the positions in the mask take ``value``'s entry there (a vector or
        matrix of ``w``'s shape; an absent entry deletes ``w``'s), or the scalar ``value``
        everywhere in the mask; positions outside the mask keep ``w``'s entries (``replace``:
        lose them). With ``accum``, the mask's positions where both have an entry get
        ``accum(w(i), value(i))``.

        Parameters
        ----------
        w : vector or matrix
            Modified in place.
        value : vector, matrix or scalar
            Cast to ``w``'s dtype.
        mask : vector or matrix or None
            Required keyword (None: every position).
        structure, complement, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector or matrix
            ``w``, for chaining.

        Raises
        ------
        ValueError
            An unknown accum op.
        NotImplementedError
            ``accum`` has no typed instance for these dtypes here.
        """

    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None,
                    accum=None, replace=False):
        """``w<mask> accum= op(i, thunk)`` for each entry ``u(i)`` (``op(i, j, thunk)`` for
        ``A(i, j)``): GraphBLAS ``apply`` with an index-unary operator (``GrB_IndexUnaryOp``).

        ``op`` is a user-defined :class:`~gbgraph.backends.operators.IndexUnaryOp`,
        ``w(i, j) = op(u(i, j), i, j, thunk)`` (``j = 0`` for a vector), typed by numba; its
        ``thunk`` may be a tuple of full vectors read at i and j, as in :meth:`select`. Or
        ``op`` is a name of :data:`INDEX_UNARY_OPS`: ``rowindex`` gives ``i + thunk``,
        ``colindex`` ``j + thunk``, ``diagindex`` ``j - i + thunk``, as int64. Or ``op`` is a
        user-defined callable ``op(ids, thunk)`` taking a vector's entries' positions (a
        sorted int64 array of ``be.xp``) and returning their values. It may also carry a
        device version, ``op.cuda(indices, count_ptr, count, capacity, thunk)`` (see
        :mod:`gbgraph.backends.cupy.kernels`), which the cupy backend runs without bringing the
        positions to the host.

        Parameters
        ----------
        op : str, IndexUnaryOp or callable
        u : vector or matrix
            A matrix only with a named ``op`` or an IndexUnaryOp.
        thunk : int or tuple of vectors, optional
            Default 0 for a named ``op``; full vectors for an IndexUnaryOp.
        mask, structure, complement, out, accum, replace
            Output controls (module docstring).

        Returns
        -------
        vector or matrix
            int64 for a named ``op``; the callable's values' dtype for a callable.

        Raises
        ------
        ValueError
            An unknown name, or ``accum`` without ``out``.
        NotImplementedError
            A named ``op`` on a backend that has none (the default here).
        """
        if not callable(op):
            if op not in INDEX_UNARY_OPS:
                raise ValueError(f"unknown operator {op!r}; the protocol has {', '.join(INDEX_UNARY_OPS)}")
            raise NotImplementedError(f"{self.name}: apply_index with {op} is not supported")
        ids = self.indices(u)
        w = self.vector(ids, op(ids, thunk), u.size, copy=False)
        controls = _controls(mask, structure, complement, out, accum, replace)
        return self.apply("identity", w, **controls) if controls else w

    def build(self, indices, values, size, *, dup=None):
        """A vector from (index, value) pairs: ``w(indices[k]) = values[k]``
        (``GrB_Vector_build``).

        Repeated indices are combined with ``dup`` in the order given:
        ``dup(dup(v1, v2), v3)``. The default builds one vector per occurrence rank (the
        first occurrences, the second ones, ...) and folds them with :meth:`ewise_add`.

        Parameters
        ----------
        indices : array of int
            Each below ``size``, in any order.
        values : array
            Aligned with ``indices``; its dtype, one of :data:`DTYPES`, is the vector's.
        size : int
        dup : str, optional
            A name of :data:`BINARY_OPS`; None: repeated indices are an error.

        Returns
        -------
        vector

        Raises
        ------
        ValueError
            Repeated indices with ``dup=None``; an unknown ``dup``.
        NotImplementedError
            ``dup`` has no typed instance for ``values``' dtype here.
        """
        xp = self.xp
        indices = xp.asarray(indices, xp.int64)
        order = xp.argsort(indices, kind="stable")
        indices, values = indices[order], xp.asarray(values)[order]
        layers = _occurrence_layers(xp, indices)
        if len(layers) > 1 and dup is None:
            raise ValueError("build: duplicate indices and dup=None; pass dup=, a binary op")
        w = None
        for at in layers:
            layer = self.vector(indices[at], values[at], size)
            w = layer if w is None else self.ewise_add(dup, w, layer)
        return self.vector(indices[:0], values[:0], size) if w is None else w

    def build_matrix(self, rows, cols, values, nrows, ncols, *, dup=None):
        """A matrix from (row, column, value) triples: ``C(rows[k], cols[k]) = values[k]``
        (``GrB_Matrix_build``); repeated positions are combined with ``dup`` in the order
        given, as in :meth:`build`.

        Parameters
        ----------
        rows, cols : array of int
            Below ``nrows`` and ``ncols``, in any order.
        values : array
            Aligned; its dtype, one of :data:`DTYPES`, is the matrix's.
        nrows, ncols : int
        dup : str, optional
            A name of :data:`BINARY_OPS`; None: repeated positions are an error.

        Returns
        -------
        matrix

        Raises
        ------
        ValueError
            Repeated positions with ``dup=None``; an unknown ``dup``.
        NotImplementedError
            ``dup`` has no typed instance for ``values``' dtype here.
        """
        xp = self.xp
        rows, cols = xp.asarray(rows, xp.int64), xp.asarray(cols, xp.int64)
        keys = rows * ncols + cols
        order = xp.argsort(keys, kind="stable")
        keys, values = keys[order], xp.asarray(values)[order]
        layers = _occurrence_layers(xp, keys)
        if len(layers) > 1 and dup is None:
            raise ValueError("build_matrix: duplicate positions and dup=None; pass dup=, a binary op")
        C = None
        for at in layers or [xp.arange(0)]:
            indptr = xp.searchsorted(keys[at] // ncols, xp.arange(nrows + 1))
            layer = self.matrix(indptr, keys[at] % ncols, ncols=ncols, values=values[at])
            C = layer if C is None else self.ewise_add(dup, C, layer)
        return C

    def extract_tuples(self, x):
        """The entries of a vector or matrix as arrays (``GrB_extractTuples``).

        Parameters
        ----------
        x : vector or matrix

        Returns
        -------
        tuple of arrays
            ``(indices, values)`` for a vector, ``(rows, cols, values)`` for a matrix (sorted
            by row, then column), indices int64, arrays of ``be.xp``.
        """
        if hasattr(x, "nrows"):
            indptr, cols, values = self.to_csr(x)
            rows = self.xp.repeat(self.xp.arange(indptr.size - 1), self.xp.diff(indptr))
            return rows.astype(self.xp.int64), cols.astype(self.xp.int64), values
        return self.indices(x), self.values(x)

    def iterate(self, step, state, *, first=0, stop=None, check=None, stall=None):
        """Rounds ``state = step(*state, r)`` for ``r = first, first + 1, ...`` while
        ``state[0]`` has entries and ``r < stop``; returns ``(state, r)``, ``r`` the number
        of the round that would come next.

        ``step`` is one round of a worklist algorithm: it takes and returns a tuple of
        vectors, and ``r`` is the round number. A step that brings nothing to the host (no
        ``nvals``, ``indices``, ``values`` or ``reduce``) and returns vectors like the ones it
        took lets the cupy backend record it once as a CUDA graph and replay it: then ``r``
        is a device scalar, to be passed on only as a thunk (of :meth:`apply_index`; the
        compiled rounds below also compare int32 and int64 values with it in :meth:`select`), and
        the rounds run on the device, the host reading nothing between them. A step made of
        the verbs :mod:`gbgraph.backends.cupy.program` traces (masked products and row
        operators, selects, index-unary applies, masked identity applies and assigns into
        full vectors) runs instead as one generated kernel that loops over the rounds on
        the device. Either way a step must touch vectors only through the backend's verbs.

        ``check(state, r)``, when given, is a test on the host before round ``r`` (the
        first, then as it asks): it returns how many rounds may run before it is called
        again, or 0 to stop there. A test that reads the host every few rounds leaves the
        rounds between recorded.

        ``stall=k``, when given, stops the rounds before round ``r > first`` once round
        ``r - 1`` took fewer than ``1/k`` of the entries it left in ``state[0]`` out of it
        (``taken · k < left``): the test of a worklist algorithm whose rounds have stopped
        paying, which the compiled rounds make on the device (before ``check``).
        """
        state, r, due, before = tuple(state), first, first, None
        while stop is None or r < stop:
            left = self.nvals(state[0])
            if not left or stalled(before, left, stall):
                break
            before = left
            if check is not None and r == due:
                rounds = check(state, r)
                if not rounds:
                    break
                due = r + rounds
            state, r = tuple(step(*state, r)), r + 1
        return state, r

    def adjacency(self, graph, *, closed=False, weighted=False):
        """The backend matrix of a :class:`~gbgraph.graph.Graph`, cached on the graph.

        ``closed=True`` gives the pattern of A + I: each row is the closed neighbourhood
        {v} ∪ N(v), which Kokkos Kernels' MIS-2 minimises over. ``weighted=True`` gives the
        edge values (int64 ones for a pattern graph) instead of a boolean pattern. A backend
        that only reads the arrays it is given (:attr:`shares_arrays`) gets the graph's
        own, and the input's own A + I when it stored one.
        """
        xp, share = self.xp, self.shares_arrays

        def closed_matrix():
            stored = graph.input_closed_csr() if share else None
            if stored is None:
                index_dtype = graph.indices.dtype if share else self.index_dtype
                stored = graph.closed_csr(xp, self.index_dtype, index_dtype=index_dtype)
            return self.matrix(*stored, copy=False)

        if closed:
            return graph.cached((self.name, "closed"), closed_matrix)
        if weighted:
            return graph.cached((self.name, "weighted"), lambda: self.matrix(
                xp.asarray(graph.indptr), xp.asarray(graph.indices), copy=not share,
                values=xp.ones(graph.nnz, xp.int64) if graph.weights is None else xp.asarray(graph.weights)))
        return graph.cached((self.name, "pattern"), lambda: self.matrix(
            xp.asarray(graph.indptr), xp.asarray(graph.indices), copy=not share))

    #: Whether :meth:`matrix` with ``copy=False`` only reads the arrays it is given, so that
    #: they may stay shared with the graph (the suitesparse backend takes them over).
    shares_arrays = True

    #: dtype of the index arrays :meth:`matrix` adopts without a copy.
    index_dtype = "int64"

    def fused(self, algorithm):
        """The backend's whole-algorithm implementation of ``algorithm``, or None.

        Algorithms ask before running their verbs: ``"mis1"``, ``"mis2"``, ``"aggregate"``,
        ``"color"`` (greedy, distance 1) and ``"hec"``; a backend of fused kernels
        (``"native"``) answers with a function whose result is the verbs' own, bit for
        bit. ``"coarse_by_sort"`` is :func:`gbgraph.coarse_graph`'s ``"sort"`` construction
        (``f(graph, labels, k, low_degree_end)`` gives its CSR arrays, or None for a case
        the kernel does not take): the numba and cupy backends answer with a compiled
        kernel, since its output is a matrix, which no row operator writes. ``"visit"``
        (Algorithm 3's visit, ``f(H, keys, pending)``) and ``"roots"`` (``f(parent)``) are
        :mod:`gbgraph.algorithms.heavy`'s rounds, which the cupy backend answers with
        kernels that walk each chain once: on a GPU each round costs a launch and a host
        read, more than the whole walk. ``"capped_hec"`` (``f(graph, keys, alike, weights,
        cap, passes)``: Algorithm 3 with its weight cap, whole) is what the numba backend
        answers for the small levels of a hierarchy, where a call from Python per round cost
        more than the level's work (the partitioner's hierarchies). Every other backend runs
        the verbs. ``"jet_level"``, ``"jet_moves"``, ``"jet_update"``, ``"jet_judge"``,
        ``"jet_rebalance"`` and ``"resumed_rounds"`` are :mod:`gbgraph.algorithms.refine_jet`'s
        level set-up (θ, Σ d, Σ w), round, update of ℓ and w σ, test between rounds,
        rebalancing round and a replay resumed after host work, which the cupy backend answers
        with kernels (``jet.cu``) and one CUDA graph a level, so that the rounds between two
        rebalancings read nothing back: through the verbs a round was about twenty launches
        and two host reads, three times its GPU work. ``"jet_sigma"`` (a finer level's σ from
        the coarse sides and the labels) and ``"jet_rounds"`` (a run of a level's rounds, the
        judge's, Jet's and the rebalancing ones, in one cooperative launch) are what the cupy
        backend runs in their place where it can. None of these is part of the protocol.

        Returns
        -------
        callable or None
        """
        return None

    def guard(self, graph):
        """Context manager around an algorithm's run on ``graph``; a GPU backend turns an
        out-of-memory failure into a ``MemoryError`` that names the graph's size."""
        return contextlib.nullcontext()

    def __repr__(self):
        return f"<gbgraph backend {self.name!r}>"


def _controls(mask, structure, complement, out, accum, replace):
    """The output controls a default verb passes on, leaving out those at their defaults
    (so that a backend without a control still runs the call that does not use it)."""
    controls = {}
    if mask is not None:
        controls.update(mask=mask, structure=structure, complement=complement)
    if out is not None:
        controls["out"] = out
    if accum is not None:
        controls["accum"] = accum
    if replace:
        controls["replace"] = True
    return controls


def _occurrence_layers(xp, keys):
    """For sorted ``keys``, the positions of the first occurrence of each key, then of the
    second occurrences, and so on (empty for no keys)."""
    if keys.size == 0:
        return []
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), keys[1:] != keys[:-1]]))
    rank = xp.arange(keys.size) - xp.repeat(starts, xp.diff(xp.append(starts, keys.size)))
    return [xp.flatnonzero(rank == r) for r in range(int(rank.max()) + 1)]

