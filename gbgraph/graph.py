"""Graph inputs, canonicalised once to a sorted CSR pattern.

Every public function of gbgraph accepts a scipy sparse matrix or array (any format), a
``graphblas.Matrix``, a ``networkx.Graph``, a numpy 2-D array or the path of a Matrix Market
file (``.mtx``, ``.mtx.gz``). :func:`as_graph` turns each of these into a :class:`Graph`:
square, with a symmetric pattern, rows sorted by column, no duplicates and no self loops.
Stored entries are edges, whatever their value (an explicitly stored zero is an edge, as in
pyamg and Kokkos Kernels); stored diagonal entries are ignored.
"""

import contextlib
import os
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._malloc import keep_freed_blocks
from .errors import AsymmetricGraphError, AsymmetricValuesError, InvalidGraphError, UnsupportedGraphTypeError
from .io import read_matrix_market

__all__ = ["Graph", "SYMMETRIZE_VALUES", "as_graph", "check_finite_matrix", "check_sparse_arrays", "check_symmetric_matrix",
           "check_symmetric_values", "symmetrize", "to_container", "transposed_weights"]

_SUPPORTED = (
    "a scipy or cupyx sparse matrix or array, a graphblas.Matrix, a networkx.Graph, "
    "a 2-D numpy or cupy array or the path of a Matrix Market file (.mtx, .mtx.gz)"
)


@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected graph in canonical form: sorted CSR of its pattern, no self loops.

    Build one with :func:`as_graph`; the algorithms call it on their input, so a Graph can be
    passed anywhere a matrix can, and canonicalisation then happens only once.

    Attributes
    ----------
    n : int
        Number of vertices.
    indptr, indices : numpy.ndarray or cupy.ndarray
        CSR of the off-diagonal pattern, columns sorted within each row, no duplicates, in
        the memory the input came from (CuPy arrays for GPU input: see
        :meth:`on_device_of`).
        ``indices`` is int32 when every index and offset fits, else int64.
    weights : numpy.ndarray, cupy.ndarray or None
        Edge values aligned with ``indices`` (duplicates summed), or None for a pattern
        input (boolean matrix, Matrix Market ``pattern`` field, unweighted networkx graph)
        or one built with ``as_graph(A, weights=False)``.
    container : str
        What the input was (``"scipy.csr_array"``, ``"graphblas"``, ``"networkx"``, ...), so
        that results can be returned in the same kind of container.
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    weights: object = None
    container: str = "scipy.csr_array"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def nnz(self):
        """Stored off-diagonal entries, both triangles: twice the number of edges."""
        return int(self.indices.size)

    def cached(self, key, build):
        """Return the derived object stored under ``key``, building it once with ``build()``.

        Backends keep their matrices here (graphblas-algorithms calls these graph properties),
        so repeated calls on the same Graph convert the CSR once.
        """
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def known(self, key):
        """The object stored under ``key`` by :meth:`cached`, or None when none is."""
        return self._cache.get(key)

    def closed_csr(self, xp=np, dtype=np.int64, *, index_dtype=None):
        """Fresh CSR arrays of the closed neighbourhoods: the pattern of A + I, sorted.

        Kokkos Kernels' MIS-2 minimises over {v} ∪ N(v); storing the diagonal makes each
        closed neighbourhood one row, so one semiring product covers it.

        Parameters
        ----------
        xp : module
            Array module of the result (numpy or cupy).
        dtype : dtype
            Integer dtype of the row pointers, and of the column indices when
            ``index_dtype`` is None.
        index_dtype : dtype, optional
            Integer dtype of the column indices.
        """
        if _INPUT_CLOSED in self._cache:  # the input was A + I, or as_graph(closed=True) made it
            indptr, indices = self._cache[_INPUT_CLOSED]
            return xp.asarray(indptr).astype(dtype), xp.asarray(indices).astype(index_dtype or dtype)
        if xp is np:  # one compiled pass
            from .backends.numba.kernels import canonical

            return canonical.insert_diagonal(self.indptr, self.indices, dtype, index_dtype or dtype)
        from .backends.cupy import kernels  # the same pass, one thread a row

        return kernels.insert_diagonal(xp.asarray(self.indptr), xp.asarray(self.indices), dtype, index_dtype or dtype)

    def input_closed_csr(self):
        """The CSR arrays of A + I kept since :func:`as_graph` (int64 row pointers, the graph's
        index type): the input's own when it stored every diagonal entry, or those made with
        ``closed=True``; else None. Shared, for backends that only read."""
        return self._cache.get(_INPUT_CLOSED)

    def on_device_of(self, xp):
        """This graph with its arrays in ``xp``'s memory (numpy: the host, cupy: the GPU):
        itself when they are there already, else a copy made once and kept."""
        if array_module(self.indices) is xp:
            return self

        def move(x):
            return None if x is None else (xp.asarray(x) if xp.__name__ == "cupy" else x.get())

        with _naming_the_graph(self.n, self.nnz):
            return self.cached(("on", xp.__name__), lambda: Graph(
                self.n, move(self.indptr), move(self.indices), move(self.weights), self.container))

    def __repr__(self):
        return f"Graph(n={self.n:,}, nnz={self.nnz:,}, weighted={self.weights is not None})"


def as_graph(A, *, weights=True, closed=False, name="A"):
    """Validate a graph input and return it as a canonical :class:`Graph`.

    Parameters
    ----------
    A : scipy sparse, graphblas.Matrix, networkx.Graph, numpy.ndarray, str or os.PathLike
        The adjacency structure. Stored entries are edges; the diagonal is ignored. A Graph
        is returned unchanged.
    weights : bool
        Keep the edge values (default). Algorithms that read only the pattern pass False and
        save a float64 array of nnz entries.
    closed : bool
        Also make the pattern of A + I (:meth:`Graph.closed_csr`, kept on the graph) in the
        pass that checks the rows, for code that reads closed neighbourhoods as rows of
        A + I: one pass over A where a later :meth:`Graph.closed_csr` reads it again. An
        input that stores its diagonal is A + I already. (gbgraph's MIS and aggregation
        take each row's own vertex beside its columns on the host, and make A + I on a GPU.)
    name : str
        How error messages refer to the input.

    Returns
    -------
    Graph

    Raises
    ------
    UnsupportedGraphTypeError
        (a TypeError) for an input of another type, or with complex or object values.
    InvalidGraphError
        (a ValueError) for a non-square matrix; :class:`~gbgraph.errors.AsymmetricGraphError`,
        a subclass, for one whose pattern is not symmetric: the message gives the number of
        one-way entries and points to :func:`symmetrize`; for a directed networkx graph
        (``DiGraph``, ``MultiDiGraph``), whatever its edges: the message names
        ``G.to_undirected()`` and :func:`symmetrize`.
    FileNotFoundError, InvalidGraphError
        for a path that does not exist or cannot be read as Matrix Market; the message
        names the file.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> G = gg.as_graph(np.array([[1, 1, 0], [1, 0, 1], [0, 1, 0]]))
    >>> G.n, G.nnz, G.indices.tolist()
    (3, 4, [1, 0, 2, 1])
    """
    if isinstance(A, Graph):
        return A
    if type(A).__module__.split(".")[0] in ("cupyx", "cupy"):
        return _canonical_on_gpu(A, weights, name)
    _check_undirected(A, name)
    csr, container, weighted = _to_scipy_csr(A, name, defer_columns=True)
    return _canonical(csr, container, weighted and weights, name, closed)


#: The ``values`` of :func:`symmetrize`: the pattern only, the larger value, the sum.
SYMMETRIZE_VALUES = (None, "max", "sum")


def symmetrize(A, values=None):
    """A ∪ Aᵀ in the container type of ``A``: its pattern, or symmetric values.

    Use it on a directed or one-sided input that gbgraph rejects as asymmetric (its pattern),
    or on one whose values differ from their transpose where the values matter (coarse
    graphs, heavy edges, symmetric Gauss-Seidel).

    Parameters
    ----------
    A : any graph input accepted by :func:`as_graph` (it need not be symmetric)
    values : {None, "max", "sum"}
        None: the boolean pattern of A ∪ Aᵀ. ``"max"``: ``max(A[i, j], A[j, i])`` where both
        are stored, the diagonal kept. ``"sum"``: ``A + Aᵀ``, the diagonal doubled. Either way
        an entry stored on one side only is copied to the other, and duplicates of the
        input are summed first.

    Returns
    -------
    same kind as ``A``
        scipy input gives the same scipy class (CSR), numpy an array, graphblas a Matrix,
        networkx a ``networkx.Graph`` over the same nodes (values as ``weight``), and a path
        a ``scipy.sparse.csr_array``; the pattern is boolean, values keep A's dtype.
        Diagonal entries of A are kept. A :class:`Graph` gives a Graph (of its pattern, or
        with symmetric weights).

    Raises
    ------
    ValueError
        for an unknown ``values``, or NaN or infinite values with ``"max"`` or ``"sum"``
        (the message gives their count).
    InvalidGraphError
        if A is not square.
    UnsupportedGraphTypeError
        for an unsupported input type.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> gg.symmetrize(np.array([[0, 1], [0, 0]])).astype(int).tolist()
    [[0, 1], [1, 0]]
    >>> A = np.array([[2.0, 1.0, 0.0], [5.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    >>> gg.symmetrize(A, values="max").tolist()
    [[2.0, 5.0, 0.0], [5.0, 0.0, 3.0], [0.0, 3.0, 0.0]]
    >>> gg.symmetrize(A, values="sum").tolist()
    [[4.0, 6.0, 0.0], [6.0, 0.0, 3.0], [0.0, 3.0, 0.0]]
    """
    if values not in SYMMETRIZE_VALUES:
        raise ValueError(f"values must be one of {SYMMETRIZE_VALUES}, got {values!r}")
    if isinstance(A, Graph):
        return _symmetrized_graph(A, values)
    csr, container, _ = _to_scipy_csr(A, "A")
    _check_square(csr.shape, "A")
    if values is None:
        P = sp.csr_array((np.ones(csr.nnz, bool), csr.indices, csr.indptr), shape=csr.shape)
        S = (P + P.T).tocsr()
        S.sort_indices()
    else:
        S = _union_with_transpose(csr, values)
    return to_container(S, container, nodes=list(A.nodes) if container == "networkx" else None)


def _symmetrized_graph(graph, values):
    """A Graph (symmetric pattern) with symmetric weights, or its pattern."""
    if graph.weights is None:
        return graph
    if values is None:
        return Graph(graph.n, graph.indptr, graph.indices, None, graph.container)
    _check_finite_values(graph.weights)
    other = transposed_weights(graph)
    weights = array_module(other).maximum(graph.weights, other) if values == "max" else graph.weights + other
    return Graph(graph.n, graph.indptr, graph.indices, weights, graph.container)


def _union_with_transpose(csr, values):
    """The entries of A and Aᵀ, those at one position combined by max or sum: a sorted CSR."""
    csr = sp.csr_array(csr, copy=True)
    csr.sum_duplicates()
    _check_finite_values(csr.data)
    n = csr.shape[0]
    if not csr.nnz:
        return csr
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(csr.indptr))
    cols = csr.indices.astype(np.int64)
    r, c, v = np.concatenate((rows, cols)), np.concatenate((cols, rows)), np.concatenate((csr.data, csr.data))
    order = np.lexsort((c, r))
    r, c, v = r[order], c[order], v[order]
    start = np.flatnonzero(np.concatenate(([True], (r[1:] != r[:-1]) | (c[1:] != c[:-1]))))
    v = (np.maximum if values == "max" else np.add).reduceat(v, start)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(r[start], minlength=n))))
    return sp.csr_array((v, c[start], indptr), shape=csr.shape)


def _check_finite_values(values):
    """Max and sum of NaN or infinite values make NaN or lose them without a word."""
    xp = array_module(values)
    bad = int(values.size - xp.count_nonzero(xp.isfinite(values))) if values.dtype.kind == "f" else 0
    if bad:
        raise ValueError(f"A has {bad:,} NaN or infinite values among its {values.size:,} stored entries; "
                         "symmetric values are made of finite ones")


#: The ``weights`` choices of the functions that sum or compare edge weights (:func:`gbgraph.partition`,
#: :func:`gbgraph.bisect`, :func:`gbgraph.coarsen`) and of the command line's ``--weights``, default first.
EDGE_WEIGHTS = ("abs", "values", "pattern")


def check_weights_option(weights):
    """Raise ValueError unless ``weights`` is one of :data:`EDGE_WEIGHTS`: an argument check,
    made before the graph is read."""
    if not isinstance(weights, str) or weights not in EDGE_WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(map(repr, EDGE_WEIGHTS))}, got {weights!r}")


def choose_weights(graph, weights, why=None, option='weights="{}"', name="A"):
    """The graph with the edge weights ``weights`` asks for, checked when ``why`` is given.

    ``"abs"`` (the default of every caller): ``|A(i, j)|``, the graph itself when no weight
    is negative. A Laplacian or a stiffness matrix stores its edges as negative (or mixed)
    off-diagonal entries; their magnitudes are the strengths of the connections.
    ``"values"``: the values as stored. ``"pattern"``: none, every edge weighs 1. The graph
    of ``"abs"`` or ``"pattern"`` is made once and kept on ``graph``.

    Parameters
    ----------
    graph : Graph
    weights : {"abs", "values", "pattern"}
    why : str, optional
        Why the caller needs finite non-negative weights (it goes in the message); None
        checks nothing.
    option : str
        How the caller's user spells the choice, with ``{}`` for its value: ``weights="{}"``
        in Python, ``--weights {}`` on the command line.
    name : str
        How the message refers to the input.

    Returns
    -------
    Graph

    Raises
    ------
    ValueError
        with ``why``, for NaN or infinite weights (unless ``"pattern"``), and for negative
        ones with ``"values"``: the message gives their count and names the choices that
        fix it.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> G = gg.as_graph(gg.generators.laplace3d(2, 1, 1))
    >>> G.weights.tolist(), choose_weights(G, "abs").weights.tolist()
    ([-1.0, -1.0], [1.0, 1.0])
    >>> choose_weights(G, "pattern").weights is None
    True
    """
    distributed = hasattr(graph, "comm")  # a DistributedGraph: each rank reads its own rows
    local = graph.local_weights if distributed else graph.weights
    if local is None:
        return graph
    if weights == "pattern":
        return graph.cached(("weights", "pattern"), lambda: _reweighted(graph, lambda w: None))
    xp = array_module(local)

    def count():
        counts = np.array([int(xp.count_nonzero(local < 0)), int(local.size - xp.count_nonzero(xp.isfinite(local)))])
        return tuple(int(c) for c in (graph.comm.allreduce(counts) if distributed else counts))

    negative, nonfinite = graph.cached(("weights", "bad"), count)
    if why is not None and nonfinite:
        raise ValueError(f"{name} has {nonfinite:,} NaN or infinite weights among its {graph.nnz:,} off-diagonal "
                         f"entries; {why}, so weights must be finite (drop those entries, or pass "
                         f"{option.format('pattern')} for 1 per edge)")
    if why is not None and negative and weights == "values":
        raise ValueError(f"{name} has {negative:,} negative weights among its {graph.nnz:,} off-diagonal entries; "
                         f"{why}, so weights must be >= 0: pass {option.format('abs')} for their absolute values "
                         f"(the default; a Laplacian's off-diagonal entries) or {option.format('pattern')} for 1 "
                         "per edge")
    if weights == "values" or not negative:
        return graph
    return graph.cached(("weights", "abs"), lambda: _reweighted(graph, xp.abs))


def _reweighted(graph, change):
    """``graph`` with its weights ``change(weights)``; a DistributedGraph stays one, each rank
    changing its own rows."""
    if hasattr(graph, "comm"):
        return type(graph)(graph.n, graph.local_indptr, graph.local_indices, change(graph.local_weights), graph.comm)
    return Graph(graph.n, graph.indptr, graph.indices, change(graph.weights), graph.container)


#: Graph cache key of :func:`check_symmetric_values`' finding (coarse levels inherit a symmetric one).
SYMMETRIC_VALUES = ("values", "asymmetry")


def check_symmetric_values(graph, remedy, name="A"):
    """Raise :class:`~gbgraph.errors.AsymmetricValuesError` if some weight ``A[i, j]`` differs
    from ``A[j, i]``, naming the largest difference; a pattern passes.

    Computed once per graph (a transpose of its weights, on their device) and kept under
    :data:`SYMMETRIC_VALUES`.

    Parameters
    ----------
    graph : Graph
    remedy : str
        Why the values must be symmetric where the caller uses them, and what to do; it
        ends the message.
    name : str
        How the message refers to the input.

    Raises
    ------
    AsymmetricValuesError
        (a ValueError) with the number of entries that differ, and the position and values
        of the largest difference.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> G = gg.as_graph(np.array([[0.0, 1.0], [5.0, 0.0]]))
    >>> check_symmetric_values(G, "make them symmetric")
    Traceback (most recent call last):
    ...
    gbgraph.errors.AsymmetricValuesError: A has asymmetric values: 2 of its 2 off-diagonal entries A[i, j] differ from A[j, i]; the largest difference is |A[0, 1] - A[1, 0]| = |1.0 - 5.0| = 4.0; make them symmetric
    >>> check_symmetric_values(gg.symmetrize(G, values="max"), "")   # passes
    """
    if graph.weights is None:
        return
    count, position, values = graph.cached(SYMMETRIC_VALUES, lambda: _value_asymmetry(graph))
    if count:
        raise AsymmetricValuesError(name, count, graph.nnz, position, values, remedy)


def _value_asymmetry(graph):
    """(entries whose weight differs from the transposed one, (i, j) of the largest
    difference, (A[i, j], A[j, i])); (0, None, None) for symmetric weights."""
    weights = graph.weights
    xp = array_module(weights)
    other = transposed_weights(graph)
    differ = weights != other
    count = int(xp.count_nonzero(differ))
    if not count:
        return 0, None, None
    p = int(xp.argmax(xp.where(differ, xp.abs(weights - other), -1.0)))  # the first largest: its row is i < j
    i = int(xp.searchsorted(xp.asarray(graph.indptr), p, side="right")) - 1
    return count, (i, int(graph.indices[p])), (float(weights[p]), float(other[p]))


def check_symmetric_matrix(A, remedy, name="A"):
    """Raise :class:`~gbgraph.errors.AsymmetricValuesError` unless the scipy CSR ``A`` equals
    its transpose (any pattern: a missing entry reads 0, and the entries counted are the
    off-diagonal positions of A ∪ Aᵀ), naming the largest difference.

    Parameters
    ----------
    A : scipy.sparse.csr_array
        Square, duplicates summed.
    remedy : str
        Why the caller needs a symmetric A, and what to do; it ends the message.
    name : str
        How the message refers to A.

    Raises
    ------
    AsymmetricValuesError
        (a ValueError) with the number of entries that differ, and the position and values
        of the largest difference.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> check_symmetric_matrix(sp.csr_array([[4.0, 1.0], [0.0, 4.0]]), "symmetrize it")
    Traceback (most recent call last):
    ...
    gbgraph.errors.AsymmetricValuesError: A has asymmetric values: 2 of its 2 off-diagonal entries A[i, j] differ from A[j, i]; the largest difference is |A[0, 1] - A[1, 0]| = |1.0 - 0.0| = 1.0; symmetrize it
    """
    D = sp.csr_array(A - A.T)
    D.eliminate_zeros()
    if not D.nnz:
        return
    p = int(np.argmax(np.abs(D.data)))  # the first largest in row order: its row is i < j
    i, j = int(np.searchsorted(D.indptr, p, side="right")) - 1, int(D.indices[p])
    coo = sp.coo_array(A)
    off = coo.row != coo.col
    row, col, n = coo.row[off].astype(np.int64), coo.col[off].astype(np.int64), A.shape[0]
    stored = int(np.unique(np.concatenate((row * n + col, col * n + row))).size)  # positions of A ∪ Aᵀ
    raise AsymmetricValuesError(name, D.nnz, stored, (i, j), (float(A[i, j]), float(A[j, i])), remedy)


def check_finite_matrix(A, why, name="A"):
    """Raise ValueError if the scipy CSR ``A`` stores NaN or infinite values.

    Parameters
    ----------
    A : scipy.sparse.csr_array
    why : str
        Why the caller needs finite values; it ends the message.
    name : str
        How the message refers to A.

    Raises
    ------
    ValueError
        with the number of NaN or infinite entries and the first one's position and value.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> check_finite_matrix(sp.csr_array([[1.0, np.inf], [np.nan, 1.0]]), "sweeps need finite values")
    Traceback (most recent call last):
    ...
    ValueError: A has 2 NaN or infinite entries; the first is A[0, 1] = inf; sweeps need finite values
    """
    bad = ~np.isfinite(A.data[:A.indptr[-1]])
    if bad.any():
        p = int(np.argmax(bad))
        i, j = int(np.searchsorted(A.indptr, p, side="right")) - 1, int(A.indices[p])
        raise ValueError(f"{name} has {int(bad.sum()):,} NaN or infinite entries; the first is {name}[{i}, {j}] = "
                         f"{A.data[p]}; {why}")


def checked_on_gpu(A, host_check, *, symmetric, nonzero_diagonal=False):
    """A cupyx sparse matrix (or 2-D CuPy array) as a float64 CSR copy with its duplicates
    summed, tested on the device for what ``host_check`` rejects: values that differ from
    the transpose's (with ``symmetric``), NaN or infinite values and (with
    ``nonzero_diagonal``) a zero on the diagonal. If a test fails, ``host_check`` runs on
    the host copy, so that the error is the CPU path's, message and all.

    Parameters
    ----------
    A : cupyx sparse matrix or cupy.ndarray
        Square, real (checked by the caller).
    host_check : callable
        Takes the host copy as a scipy CSR array; raises.
    symmetric, nonzero_diagonal : bool

    Returns
    -------
    cupyx.scipy.sparse.csr_matrix

    Raises
    ------
    ValueError
        what ``host_check`` raises for the host copy.
    """
    import cupy
    import cupyx.scipy.sparse as csp

    A = csp.csr_matrix(A)
    A = A.astype(cupy.float64) if A.dtype != cupy.float64 else A.copy()  # sum_duplicates sorts in place
    A.sum_duplicates()
    failed = not bool(cupy.isfinite(A.data).all()) or (nonzero_diagonal and not bool((A.diagonal() != 0).all()))
    if symmetric and not failed:  # A - Aᵀ has no entry but zeros: each entry looked up in its transposed row
        from .backends.cupy import kernels

        failed = int(kernels.count_one_way(A.indptr, A.indices, A.data)) > 0
    if failed:
        host_check(sp.csr_array(A.get()))
    return A


def transposed_weights(graph):
    """The weight of (j, i) at the position of each entry (i, j) of a weighted Graph.

    The pattern is symmetric and the rows sorted, so the CSR of Wᵀ lists the same positions
    in the same order: its values are aligned with the graph's (scipy's or cuSPARSE's
    transpose, O(nnz), on the weights' device).

    Parameters
    ----------
    graph : Graph
        With weights.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        float64, aligned with ``graph.indices``.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> G = gg.as_graph(np.array([[0.0, 1.0, 2.0], [5.0, 0.0, 0.0], [3.0, 0.0, 0.0]]))
    >>> G.weights.tolist(), transposed_weights(G).tolist()
    ([1.0, 2.0, 5.0, 3.0], [5.0, 3.0, 1.0, 2.0])
    """
    shape = (graph.n, graph.n)
    indptr = graph.indptr.astype(graph.indices.dtype)  # int32 indices: then the offsets fit too, and nothing is copied
    if array_module(graph.weights) is np:
        W = sp.csr_array((graph.weights, graph.indices, indptr), shape=shape)
    else:
        import cupyx.scipy.sparse as csp

        W = csp.csr_matrix((graph.weights, graph.indices, indptr), shape=shape)
    Wt = W.T.tocsr()
    Wt.sort_indices()
    return Wt.data


def _to_scipy_csr(A, name, defer_columns=False):
    """(csr, container, weighted) for any supported input; csr may share the input's arrays.

    ``defer_columns``: a square CSR input of real values keeps its column indices unchecked,
    for :func:`_canonical`, whose pass over the rows checks them (with the same message);
    they are the only thing left to fail, so the errors come in the same order.
    """
    if isinstance(A, (str, os.PathLike)):
        csr, weighted = read_matrix_market(A)
        return csr, "path", weighted
    if sp.issparse(A):
        deferred = defer_columns and A.format == "csr" and A.shape[0] == A.shape[1] and A.dtype.kind in "biuf"
        check_sparse_arrays(A, name, np, columns=not deferred)
        csr = A.tocsr()
        kind = "scipy.csr_array" if isinstance(A, sp.sparray) else "scipy.csr_matrix"
        return _checked_values(csr, name), kind, csr.dtype != bool
    if isinstance(A, np.ndarray):
        if A.ndim != 2:
            raise InvalidGraphError(f"{name} must be a 2-D array, got {A.ndim} dimensions")
        _check_dtype(A.dtype, name)  # before scipy, which rejects object arrays in its own words
        return sp.csr_array(A), "numpy", A.dtype != bool
    module = type(A).__module__.split(".")[0]
    if module in ("cupyx", "cupy"):
        return _from_gpu(A, name)
    if module == "graphblas" and type(A).__name__ == "Matrix":
        indptr, indices, values = A.to_csr()
        csr = sp.csr_array((values, indices, indptr), shape=A.shape)
        return _checked_values(csr, name), "graphblas", A.dtype.name != "BOOL"
    if module == "networkx":
        import networkx as nx

        if not isinstance(A, nx.Graph):
            raise UnsupportedGraphTypeError(f"{name} is a {type(A).__name__}; expected {_SUPPORTED}")
        if len(A) == 0:  # networkx builds no matrix of an empty graph
            return sp.csr_array((0, 0), dtype=bool), "networkx", False
        # networkx reads a missing weight as 1; one weighted edge makes the graph weighted
        weighted = any("weight" in data for _, _, data in A.edges(data=True))
        csr = nx.to_scipy_sparse_array(A, weight="weight" if weighted else None, format="csr")
        return _checked_values(csr, name), "networkx", weighted
    raise UnsupportedGraphTypeError(f"{name} is a {type(A).__module__}.{type(A).__name__}; expected {_SUPPORTED}")


def _check_undirected(A, name):
    """A networkx user states direction in the graph's type, not in its edges: a DiGraph is
    refused as such, even one whose edges all come in pairs (gbgraph would drop the direction
    without a word)."""
    if type(A).__module__.split(".")[0] == "networkx" and getattr(A, "is_directed", lambda: False)():
        raise InvalidGraphError(f"{name} is a directed networkx graph ({type(A).__name__}); gbgraph's graphs are "
                                "undirected, with a symmetric pattern: pass G.to_undirected() (an edge wherever "
                                "either direction is) or gg.symmetrize(G)")


def _from_gpu(A, name):
    """A cupyx sparse matrix or a 2-D cupy array, brought to the host: gbgraph canonicalises
    on the CPU, and the GPU backend takes the canonical arrays back."""
    if hasattr(A, "tocsr"):
        import cupy

        check_sparse_arrays(A, name, cupy)
        A = A.tocsr()
        csr = sp.csr_array((A.data.get(), A.indices.get(), A.indptr.get()), shape=A.shape)
    elif getattr(A, "ndim", None) == 2:
        csr = sp.csr_array(A.get())
    else:
        raise UnsupportedGraphTypeError(f"{name} is a {type(A).__module__}.{type(A).__name__}; expected {_SUPPORTED}")
    return _checked_values(csr, name), "cupyx", csr.dtype != bool


def check_sparse_arrays(A, name="A", xp=np, *, columns=True):
    """Check the index arrays of a scipy (``xp=numpy``) or cupyx (``xp=cupy``) sparse matrix
    before any code reads through them.

    scipy and cupyx trust the arrays of a matrix built from them; an index out of range
    makes their conversions read and write outside their arrays (a crash, or memory
    corrupted in silence). Compressed (CSR, CSC) and coordinate formats are checked here in
    a few vectorised passes; BSR by scipy's full check. Other formats build their indices
    themselves. ``columns=False`` leaves a CSR's column indices to the caller (their type is
    checked still).

    Raises
    ------
    InvalidGraphError
        (a ValueError) naming the first bad index, its row (or column, or entry) and the
        valid range, or the row where the row pointers go wrong.
    UnsupportedGraphTypeError
        for index arrays that are not integers.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array((np.ones(2), np.array([1, 1000]), np.array([0, 1, 2])), shape=(2, 2))
    >>> check_sparse_arrays(A)
    Traceback (most recent call last):
    ...
    gbgraph.errors.InvalidGraphError: A has column index 1000 in row 1; it must lie in 0..1
    """
    if A.format in ("csr", "csc"):
        major, minor = ("row", "column") if A.format == "csr" else ("column", "row")
        n_major, n_minor = A.shape if A.format == "csr" else A.shape[::-1]
        _check_compressed(A.indptr, A.indices, n_major, n_minor, name, xp, major, minor,
                          minor_range=columns or A.format != "csr")
    elif A.format == "coo":
        for coords, size, what in zip(A.coords, A.shape, ("row", "column")):
            _check_range(coords, size, name, xp, f"{what} index", lambda p: f"entry {p}")
    elif A.format == "bsr":
        try:
            A.check_format(full_check=True)
        except ValueError as e:
            raise InvalidGraphError(f"{name} is not a valid BSR matrix: {e}") from None


def _check_compressed(indptr, indices, n_major, n_minor, name, xp, major="row", minor="column", minor_range=True):
    """Row pointers that start at 0, never decrease and stay within ``indices``; column
    indices of an integer type, in 0..n_minor-1 unless not ``minor_range``. Errors name the
    row and the bad value."""
    if indptr.ndim != 1 or indptr.size != n_major + 1:
        raise InvalidGraphError(f"{name}.indptr has {indptr.size:,} entries; {n_major:,} {major}s need "
                                f"{n_major + 1:,}")
    if int(indptr[0]) != 0:
        raise InvalidGraphError(f"{name}.indptr must start at 0, got {int(indptr[0])}")
    steps = xp.diff(indptr)
    if steps.size and int(steps.min()) < 0:
        r = int(xp.argmax(steps < 0))
        raise InvalidGraphError(f"{name}.indptr decreases at {major} {r}: indptr[{r}] = {int(indptr[r])} > "
                                f"indptr[{r + 1}] = {int(indptr[r + 1])}")
    stored = int(indptr[-1])
    if stored > indices.size:
        raise InvalidGraphError(f"{name}.indptr ends at {stored:,}, beyond the {indices.size:,} entries of "
                                f"{name}.indices")

    def where(p):
        return f"{major} {int(xp.searchsorted(indptr, p, side='right')) - 1}"

    _check_range(indices[:stored], n_minor if minor_range else None, name, xp, f"{minor} index", where)


def _check_range(values, size, name, xp, what, where):
    """Every entry of ``values`` in 0..size-1, else an error naming the first one outside;
    only their type when ``size`` is None."""
    if values.dtype.kind not in "iu":
        raise UnsupportedGraphTypeError(f"{name} has {values.dtype} {what}s; expected integers")
    if size is None or values.size == 0 or (int(values.min()) >= 0 and int(values.max()) < size):
        return
    p = int(xp.argmax((values < 0) | (values >= size)))
    raise InvalidGraphError(f"{name} has {what} {int(values[p])} in {where(p)}; it must lie in 0..{size - 1}")


def _checked_values(csr, name):
    _check_dtype(csr.dtype, name)
    return csr


def _check_dtype(dtype, name):
    if dtype.kind not in "biuf":
        raise UnsupportedGraphTypeError(f"{name} has {dtype} values; expected boolean, integer or real values")


def _check_square(shape, name):
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidGraphError(f"{name} must be square, got shape {tuple(shape)}")


def _canonical(csr, container, weighted, name, with_closed=False):
    """The Graph of a square scipy CSR, by the CPU's pass over the rows (numba kernel
    ``canonical.scan_rows``).

    The pass checks the column indices, the order of each row and the symmetry of the
    pattern, finds the stored diagonal entries and, when the input looks like A + I (its
    first and last rows store their diagonal entry: a matrix), copies the rows without them
    on the way. An input without a diagonal (an adjacency matrix) is not copied at all.
    Only an unsorted input is sorted (duplicates summed) and passed again, and only one that
    stores some diagonal entries and not others, or is not what its first and last rows
    suggest, has its diagonal dropped by a second pass. An input that stores every diagonal
    entry is A + I already: it is kept as the graph's closed neighbourhoods
    (:meth:`Graph.closed_csr`). ``with_closed``: an input without diagonal entries has its
    rows copied with them in the same pass, kept as the graph's closed neighbourhoods.
    """
    from .backends.numba.kernels import canonical

    _check_square(csr.shape, name)
    # the pass writes arrays of nnz entries: glibc's freed blocks kept, as the backends keep
    # them, or each call maps and zeroes them afresh (Laplace3D 100³: 13.5 -> 10.8 ms)
    keep_freed_blocks()
    if csr.indices.size != csr.indptr[-1]:
        csr = csr.copy()  # copy() drops storage beyond indptr[-1]
    n = csr.shape[0]
    index_dtype = np.int32 if max(n, csr.indices.size) < 2**31 else np.int64
    if csr.indices.dtype != index_dtype:  # checked before a narrowing copy could wrap a bad index into range
        _check_columns(csr.indptr, csr.indices, n, name)
    indptr, indices = csr.indptr, csr.indices.astype(index_dtype, copy=False)
    values = csr.data.astype(np.float64, copy=False) if weighted else None
    closed = n > 0 and _stores_diagonal(indptr, indices, 0) and _stores_diagonal(indptr, indices, n - 1)
    scan = canonical.scan_rows(indptr, indices, values, closed, with_closed)
    out_of_range, unsorted = scan[:2]
    if out_of_range:
        _check_columns(indptr, indices, n, name)
    if unsorted:
        S = sp.csr_array((csr.data, indices, indptr), shape=csr.shape, copy=True)  # sum_duplicates works in place
        S.sum_duplicates()  # sorts the rows too
        indptr, indices = S.indptr, S.indices.astype(index_dtype, copy=False)
        values = S.data.astype(np.float64, copy=False) if weighted else None
        scan = canonical.scan_rows(indptr, indices, values, closed, with_closed)
    symmetric, diagonal = scan[2:4]
    diagonals = int(np.count_nonzero(diagonal))
    if not symmetric:
        raise AsymmetricGraphError(name, _one_way_entries(indptr, indices, n), indices.size - diagonals,
                                   f"use gg.symmetrize({name}) for the pattern of A ∪ Aᵀ")
    indptr = indptr.astype(np.int64, copy=False)
    if diagonals == 0:
        graph = Graph(n, indptr, indices, values, container)
        if with_closed and not closed:
            graph._cache[_INPUT_CLOSED] = scan[4][:2]
        return graph
    if diagonals == n and closed:
        new_indptr, new_indices, new_values = scan[4]
    else:
        new_indptr = indptr.copy()
        new_indptr[1:] -= np.cumsum(diagonal, dtype=np.int64)
        new_indices, new_values = canonical.drop_diagonal(indptr, indices, values, new_indptr)
    graph = Graph(n, new_indptr, new_indices, new_values, container)
    if diagonals == n:
        graph._cache[_INPUT_CLOSED] = (indptr, indices)
    return graph


def _stores_diagonal(indptr, indices, i):
    return bool(np.any(indices[indptr[i]:indptr[i + 1]] == i))


def _check_columns(indptr, indices, n, name):
    """The error of :func:`check_sparse_arrays` for a column index outside 0..n-1."""
    _check_compressed(indptr, indices, n, n, name, np)


def _one_way_entries(indptr, indices, n):
    """Entries (i, j), i != j, of a sorted CSR pattern without an entry (j, i)."""
    rows = np.repeat(np.arange(n), np.diff(indptr))
    off = rows != indices
    P = sp.csr_array((np.ones(int(off.sum()), bool), (rows[off], indices[off])), shape=(n, n))
    return int(P.nnz - P.multiply(P.T).nnz)


def _canonical_on_gpu(A, weights, name, checked=False):
    """The Graph of a cupyx sparse matrix or 2-D CuPy array, canonicalised on the GPU: its
    arrays stay there (:func:`_canonical_arrays` with the GPU's kernels). ``checked``: the
    index arrays come from cuSPARSE or gbgraph's kernels, not from a user, and
    :func:`check_sparse_arrays` is skipped."""
    import cupy
    import cupyx.scipy.sparse as csp

    from .backends.cupy import kernels

    if hasattr(A, "tocsr"):
        if not checked:
            check_sparse_arrays(A, name, cupy)
        A = A.tocsr()
        weighted = A.dtype != bool
    elif getattr(A, "ndim", None) == 2:
        _check_dtype(A.dtype, name)
        weighted = A.dtype != bool
        A = csp.csr_matrix(A if A.dtype.kind in "fc" else A.astype(np.float64))  # cupyx holds floats only
    else:
        raise UnsupportedGraphTypeError(f"{name} is a {type(A).__module__}.{type(A).__name__}; expected {_SUPPORTED}")
    _check_dtype(A.dtype, name)
    _check_square(A.shape, name)

    def sorted_csr(indptr, indices, data):
        S = csp.csr_matrix((data, indices, indptr), shape=A.shape, copy=True)  # sum_duplicates works in place
        S.sum_duplicates()  # sorts the rows too
        return S.indptr, S.indices, S.data

    data = A.data[:int(A.indptr[-1])]
    with _naming_the_graph(A.shape[0], data.size):
        return _canonical_arrays(cupy, kernels, A.shape[0], A.indptr, A.indices[:data.size], data,
                                 weights and weighted, "cupyx", name, sorted_csr)


def _canonical_arrays(xp, kernels, n, indptr, indices, data, weighted, container, name, sorted_csr):
    """Sorted, duplicate-free, diagonal-free CSR with a checked symmetric pattern, by the
    GPU's kernels (the CPU's pass is :func:`_canonical`'s).

    One pass over the rows finds the unsorted ones and the stored diagonal and checks the
    symmetry, looking every entry up in its transposed row; only an unsorted input is
    sorted (``sorted_csr``, which also sums duplicates) and inspected again, and only a
    stored diagonal is dropped (a second pass), so a canonical input costs one reading pass
    and is not copied. An input that stores every diagonal entry is A + I already: it is
    kept as the graph's closed neighbourhoods (:meth:`Graph.closed_csr`).
    """
    indptr = indptr.astype(np.int64, copy=False)
    diagonal, unsorted, one_way = kernels.inspect_rows(indptr, indices)
    if int(unsorted):
        indptr, indices, data = sorted_csr(indptr, indices, data)
        indptr = indptr.astype(np.int64, copy=False)
        diagonal, unsorted, one_way = kernels.inspect_rows(indptr, indices)
    index_dtype = np.int32 if max(n, indices.size) < 2**31 else np.int64
    indices = indices.astype(index_dtype, copy=False)
    values = data.astype(np.float64, copy=False) if weighted else None
    closed = None
    diagonal_count = int(diagonal.sum())
    if diagonal_count:
        if diagonal_count == n:
            closed = (indptr, indices)
        new_indptr = indptr.copy()
        new_indptr[1:] -= xp.cumsum(diagonal, dtype=np.int64)
        indices, values = kernels.drop_diagonal(indptr, indices, values, new_indptr)
        indptr = new_indptr
    one_way = int(one_way)
    if one_way:
        raise AsymmetricGraphError(name, one_way, int(indices.size), f"use gg.symmetrize({name}) for the pattern of A ∪ Aᵀ")
    graph = Graph(n, indptr, indices, values, container)
    if closed is not None:
        graph._cache[_INPUT_CLOSED] = closed
    return graph


@contextlib.contextmanager
def _naming_the_graph(n, nnz):
    """Out of memory (CuPy's error is a MemoryError) becomes a MemoryError giving the size."""
    try:
        yield
    except MemoryError as e:
        raise MemoryError(f"out of memory on a graph of {n:,} vertices and {nnz:,} stored entries: {e}") from e


#: Graph cache key of A + I made with the graph: the input's own, when it stored every
#: diagonal entry, or the canonical pass's copy (``as_graph(closed=True)``).
_INPUT_CLOSED = ("input", "closed")


def array_module(x):
    """numpy, or cupy for an array on the GPU (the module of the device ``x`` lives on)."""
    if hasattr(x, "__cuda_array_interface__"):
        import cupy

        return cupy
    return np


def csr_on_device(xp, indptr, indices, values, shape):
    """A CSR matrix of the device of ``xp``: a ``scipy.sparse.csr_array`` for numpy, a
    ``cupyx.scipy.sparse.csr_matrix`` for cupy (whose values are floating-point only: integer
    counts become exact float64)."""
    if xp is np:
        return sp.csr_array((values, indices, indptr), shape=shape)
    import cupyx.scipy.sparse

    values = values if values.dtype.kind in "fc" else values.astype(np.float64)
    return cupyx.scipy.sparse.csr_matrix((values, indices, indptr), shape=shape)


def to_container(S, container, nodes=None):
    """Return the scipy CSR ``S`` as the kind of object named by ``container``.

    Parameters
    ----------
    S : scipy.sparse.csr_array
    container : str
        A :attr:`Graph.container` value.
    nodes : list, optional
        For ``"networkx"``: the node labels of rows 0, 1, ... (default: the integers).
    """
    if container == "scipy.csr_matrix":
        return sp.csr_matrix(S)
    if container == "cupyx":
        import cupyx.scipy.sparse

        return cupyx.scipy.sparse.csr_matrix(S)
    if container == "numpy":
        return S.toarray()
    if container == "graphblas":
        import graphblas as gb

        return gb.Matrix.from_csr(S.indptr, S.indices, S.data, ncols=S.shape[1])
    if container == "networkx":
        import networkx as nx

        G = nx.from_scipy_sparse_array(S, create_using=nx.Graph)
        return G if nodes is None else nx.relabel_nodes(G, dict(enumerate(nodes)))
    return S
