"""Reading graphs from Matrix Market files (``.mtx`` and gzip-compressed ``.mtx.gz``)."""

import inspect
import os

import scipy.io
import scipy.sparse as sp

from .errors import InvalidGraphError, UnsupportedGraphTypeError

__all__ = ["read_matrix_market"]

_SUFFIXES = (".mtx", ".mtx.gz")
# scipy >= 1.15 returns a sparse array when asked (its default moves there in 1.20, with a
# DeprecationWarning meanwhile); older versions have no such keyword
_AS_ARRAY = {"spmatrix": False} if "spmatrix" in inspect.signature(scipy.io.mmread).parameters else {}


def read_matrix_market(path):
    """Read a Matrix Market file as a CSR array.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.mtx`` or ``.mtx.gz`` file. Symmetric files are expanded to both triangles.

    Returns
    -------
    csr : scipy.sparse.csr_array
    weighted : bool
        False when the file's field is ``pattern`` (no values).

    Raises
    ------
    FileNotFoundError
        if ``path`` does not exist (the message names it).
    InvalidGraphError
        if the suffix is not ``.mtx``/``.mtx.gz`` or the content is not Matrix Market.
    UnsupportedGraphTypeError
        for a ``complex`` field.

    Examples
    --------
    >>> from gbgraph import datasets
    >>> csr, weighted = read_matrix_market(datasets.path("fe_4elt2"))
    >>> csr.shape, csr.nnz, weighted
    ((11143, 11143), 65636, False)
    """
    path = os.fspath(path)
    if not str(path).endswith(_SUFFIXES):
        raise InvalidGraphError(f"cannot read graph file {path!r}: expected a {' or '.join(_SUFFIXES)} file")
    if not os.path.exists(path):
        raise FileNotFoundError(f"graph file {path!r} does not exist")
    try:
        field = scipy.io.mminfo(path)[4]
        if field == "complex":
            raise UnsupportedGraphTypeError(f"graph file {path!r} has complex values")
        matrix = scipy.io.mmread(path, **_AS_ARRAY)
    except (ValueError, OSError, EOFError, IndexError) as e:
        raise InvalidGraphError(f"cannot read Matrix Market file {path!r}: {e}") from e
    return sp.csr_array(matrix), field != "pattern"
