"""First use: the CPU default runs on ``suitesparse`` while gbgraph's numba kernels compile
in a background process.

numba compiles each kernel on its first call and caches the machine code; with an empty
cache (a fresh install, a new numba, a CI runner) the first calls of a session used to spend
a minute compiling. Instead, the first request for the default CPU backend
(:func:`gbgraph.backends.backend` with None) starts ``python -m gbgraph._warmup`` in a
process of its own, at the lowest priority, which runs the everyday algorithms on small
graphs with ``backend="numba"`` (so that numba compiles and caches what they use) and then
leaves a stamp beside numba's cache. Until the stamp is there, the default is
``suitesparse``, which compiles nothing and gives the same results bit for bit
(tests/test_identity.py); from then on, in this process and every later one, it is
``numba``. A backend named explicitly is always used.

The stamp lives in the directory numba caches the kernels in (``__pycache__`` beside them,
or, where that is read-only, numba's user-wide cache, ``NUMBA_CACHE_DIR`` when set), under a
name that changes with numba's and Python's versions and gbgraph's sources: a new cache, a
new numba or an edited kernel starts a new warm-up.

``GBGRAPH_WARMUP=0`` turns all this off: the default is ``numba`` at once, and each kernel
compiles in the process that first calls it (the behaviour of gbgraph 0.1).
"""

import hashlib
import os
import subprocess
import sys
import time

__all__ = ["default_cpu_backend", "ready", "main"]

#: The environment variable: "0" turns the warm-up off; the warm-up process itself sets it to
#: "running", so that it starts no other.
VARIABLE = "GBGRAPH_WARMUP"

#: A warm-up whose lock is older than this (seconds) is taken for dead and started again.
_STALE = 900

_state = {"ready": False}


def default_cpu_backend():
    """The name of the default CPU backend now: ``"numba"`` when its kernels are compiled (or
    the warm-up is off), else ``"suitesparse"``, having started the warm-up if none runs.

    Returns
    -------
    str

    Examples
    --------
    >>> default_cpu_backend() in ("numba", "suitesparse")
    True
    """
    setting = os.environ.get(VARIABLE, "")
    if setting in ("0", "running") or ready():
        return "numba"
    stamp = _stamp()
    if stamp is None:  # no writable cache: numba compiles in this process, as before
        return "numba"
    _start(stamp)
    return "suitesparse"


def ready():
    """Whether the warm-up's stamp is there: the kernels are compiled and cached.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(ready(), bool)
    True
    """
    if not _state["ready"]:
        stamp = _stamp()
        _state["ready"] = stamp is not None and os.path.exists(stamp)
    return _state["ready"]


def _stamp():
    """The stamp's path: in the directory of numba's cache of the kernels, named by a hash of
    the numba and Python versions and of the size and time of each of gbgraph's modules; None
    where that directory cannot be written."""
    if "stamp" not in _state:
        import numba

        from .backends.numba.kernels import products

        directory = products.pull_second.parallel._cache._cache_path
        package = os.path.dirname(os.path.abspath(__file__))
        digest = hashlib.sha256(f"{numba.__version__} {sys.version} {directory}".encode())
        for root, folders, files in os.walk(package):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                info = os.stat(os.path.join(root, name))
                digest.update(f"{root}/{name} {info.st_size} {info.st_mtime_ns}".encode())
        name = os.path.join(directory, f"gbgraph-warm-{digest.hexdigest()[:16]}")
        _state["stamp"] = name if _writable(directory) else None
    return _state["stamp"]


def _writable(directory):
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return False
    return os.access(directory, os.W_OK)


def _start(stamp):
    """Start ``python -m gbgraph._warmup`` unless one holds the lock (``<stamp>.lock``, made
    atomically) and is younger than :data:`_STALE`."""
    lock = stamp + ".lock"
    try:
        if time.time() - os.path.getmtime(lock) < _STALE:
            return
        os.remove(lock)
    except FileNotFoundError:
        pass
    except OSError:
        return
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except OSError:  # another process took it first
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = dict(os.environ, **{VARIABLE: "running"})
    # this gbgraph, wherever the parent found it (an editable install, PYTHONPATH, sys.path)
    environment["PYTHONPATH"] = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    subprocess.Popen([sys.executable, "-m", "gbgraph._warmup", stamp], env=environment, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _workload():
    """The everyday calls on a small graph, on ``numba``: each compiles the kernels (serial
    twins, kernels/threads.py) and dtypes that the same call on a graph of any size below the
    parallel threshold uses. First the partitioner on ``suitesparse``: its compiled steps
    outside the backend (initial partition, refinement) run on either, so the session that
    started the warm-up finds them cached if it partitions a few seconds later."""
    import gbgraph as gg

    A = gg.generators.laplace3d(4)
    pattern = abs(A)
    gg.partition(pattern, 2, backend="suitesparse")
    gg.mis2(A, backend="numba")
    gg.color(A, backend="numba")
    gg.aggregate(A, backend="numba")
    gg.coarsen(A, backend="numba")
    gg.color(A, distance=2, backend="numba")
    gg.partition(pattern, 2, backend="numba")
    gg.mis1(A, backend="numba")


def main(stamp):
    """The warm-up: compile, then leave the stamp and release the lock. The stamp says that
    the warm-up ran: should a call fail here, the default is ``numba`` all the same, which
    compiles what is missing in the process that calls it, as without a warm-up."""
    if hasattr(os, "nice"):
        os.nice(19)
    try:
        _workload()
    finally:
        with open(stamp, "w") as f:
            f.write("gbgraph's warm-up ran: its numba kernels are cached in this directory\n")
        os.remove(stamp + ".lock")


if __name__ == "__main__":
    main(sys.argv[1])
