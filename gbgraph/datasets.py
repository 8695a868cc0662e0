"""Small real graphs shipped inside the package, so examples and tests need no download.

See ``gbgraph/data/README.md`` for their provenance.
"""

from importlib import resources

from .io import read_matrix_market

__all__ = ["names", "path", "load"]

_FILES = {"fe_4elt2": "fe_4elt2.mtx.gz"}


def names():
    """Names of the embedded graphs.

    Returns
    -------
    list of str
        Sorted; each is a valid ``name`` of :func:`path` and :func:`load` (and a GRAPH of the
        command line).

    Examples
    --------
    >>> names()
    ['fe_4elt2']
    """
    return sorted(_FILES)


def path(name):
    """Filesystem path of an embedded graph's ``.mtx.gz`` file.

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    str
        The path of the file inside the installed package.

    Raises
    ------
    ValueError
        if ``name`` is not one of :func:`names`.

    Examples
    --------
    >>> path("fe_4elt2").endswith("fe_4elt2.mtx.gz")
    True
    """
    if name not in _FILES:
        raise ValueError(f"unknown embedded graph {name!r}; available: {', '.join(names())}")
    return str(resources.files("gbgraph").joinpath("data", _FILES[name]))


def load(name):
    """Load an embedded graph as a ``scipy.sparse.csr_array`` (values 1.0 for pattern files).

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    scipy.sparse.csr_array
        Both triangles, as :func:`gbgraph.io.read_matrix_market` reads the file.

    Raises
    ------
    ValueError
        if ``name`` is not one of :func:`names`.

    Examples
    --------
    >>> A = load("fe_4elt2")
    >>> A.shape, A.nnz
    ((11143, 11143), 65636)
    """
    return read_matrix_market(path(name))[0]
