"""A digest of what compiled code depends on: numba's and Python's versions and the size and
time of each of gbgraph's modules, for names of caches that must change with any of them."""

import functools
import hashlib
import os
import sys

__all__ = ["digest"]


@functools.cache
def digest():
    """Hex SHA-256 of numba's and Python's versions and of each gbgraph module's path, size and
    modification time (``os.stat``: no file is read).

    Examples
    --------
    >>> len(digest())
    64
    """
    import numba

    package = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
    for root, folders, files in os.walk(package):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            info = os.stat(os.path.join(root, name))
            h.update(f"{root}/{name} {info.st_size} {info.st_mtime_ns}".encode())
    return h.hexdigest()
