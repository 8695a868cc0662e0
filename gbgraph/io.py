"""Reading graphs from Matrix Market files (``.mtx`` and gzip-compressed ``.mtx.gz``)."""

import gzip
import inspect
import os
import zlib

import scipy.io
import scipy.sparse as sp

from . import _progress
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
        A ``.mtx`` or ``.mtx.gz`` file (the suffix in any case: ``.MTX`` too). Symmetric
        files are expanded to both triangles.

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
        if the suffix is not ``.mtx``/``.mtx.gz``, the content is not Matrix Market or a
        ``.gz`` file is not valid gzip (corrupted or truncated); the message names the file.
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
    suffix = str(path).lower()
    if not suffix.endswith(_SUFFIXES):
        raise InvalidGraphError(f"cannot read graph file {path!r}: expected a {' or '.join(_SUFFIXES)} file")
    if not os.path.exists(path):
        raise FileNotFoundError(f"graph file {path!r} does not exist")
    try:
        if suffix.endswith(".gz"):
            # scipy decompresses only names ending in lower-case ".gz": open any case here, from
            # a file that reports how far it got when a progress display listens
            with _progress.readable(path) as source, gzip.open(source) as stream:
                return _read(stream, path)
        # from the path: scipy's parallel reader (its header reader, mminfo, cannot read a
        # plain file's stream: it seeks before the start)
        return _read(path, path)
    # zlib.error: a corrupted deflate stream; EOFError: a truncated one
    except (ValueError, OSError, EOFError, IndexError, zlib.error) as e:
        raise InvalidGraphError(f"cannot read Matrix Market file {path!r}: {e}") from e


def _read(source, path):
    """(csr, weighted) from a path or a binary stream, which is read twice (header, then all)."""
    field = scipy.io.mminfo(source)[4]
    if field == "complex":
        raise UnsupportedGraphTypeError(f"graph file {path!r} has complex values")
    if hasattr(source, "seek"):
        source.seek(0)
    return sp.csr_array(scipy.io.mmread(source, **_AS_ARRAY)), field != "pattern"
