"""First use: the CPU default runs on ``suitesparse`` while gbgraph's numba kernels compile
in a background process.

numba compiles each kernel on its first call and caches the machine code; with an empty
cache (a fresh install, a new numba, a CI runner) the first calls of a session used to spend
a minute compiling. Instead, the first request for the default CPU backend
(:func:`gbgraph.backends.backend` with None) starts ``python -m gbgraph._warmup`` in a
process of its own, at the lowest priority, which runs the everyday algorithms on small
graphs with ``backend="suitesparse"``, then with ``backend="numba"`` (so that numba compiles
and caches what they use: the suitesparse backend's user-defined operators first, which the
process that started it is about to need; see :func:`_workload`) and then leaves a stamp
beside numba's cache. Until the stamp is there, the default is
``suitesparse``, which gives the same results bit for bit (tests/test_identity.py) and
compiles only the kernels of gbgraph's user-defined operators, those the warm-up compiles
first (a second or two of compiling for MIS-2, none once the warm-up has cached them);
from then on, in this process and every later one, it is
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

__all__ = ["default_cpu_backend", "ready", "compiling", "main"]

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


def compiling():
    """Whether this process runs in the warm-up's window: the warm-up is on (this process not
    the warm-up itself), numba's cache can be written, and the stamp is not there yet. Then
    the ``suitesparse`` backend, the default meanwhile, computes MIS-2's statuses with numpy
    rather than compile their kernel (a third of a second of a first use's foreground that a
    busy machine leaves the low-priority warm-up no time to save); the results are the same.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(compiling(), bool)
    True
    """
    return os.environ.get(VARIABLE, "") not in ("0", "running") and _stamp() is not None and not ready()


def _stamp():
    """The stamp's path: in the directory of numba's cache of the kernels, named by a hash of
    the numba and Python versions and of the size and time of each of gbgraph's modules; None
    where that directory cannot be written."""
    if "stamp" not in _state:
        from . import _sources
        from .backends.numba.kernels import products

        directory = products.pull_second.parallel._cache._cache_path
        digest = hashlib.sha256(f"{_sources.digest()} {directory}".encode())
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
    """The everyday calls on small graphs: first on ``suitesparse``, then on ``numba``.

    The session that started the warm-up runs on ``suitesparse`` meanwhile, and that backend
    runs gbgraph's user-defined operators (MIS-2's ``decide`` and ``undecided``, coloring's
    row operators, ...) in the generated numba kernels, the numba backend's own: compiled
    here first, that session finds them cached. So the calls run on ``suitesparse`` first,
    on graphs made with scipy and numpy (:func:`_small_graphs`) rather than by the generator
    and :func:`gbgraph.as_graph`, whose kernels that session compiles itself before anything
    else: MIS-1, then MIS-2 (a second of compiling, so that ``gbgraph mis2 laplace3d:50``
    finds it cached once it has loaded its graph). MIS-1 first: its rounds are MIS-2's,
    whose operators it compiles without the statuses kernel that MIS-2's first step needs
    (``hashing.packed_statuses``, a third of a second); that one, which the session reaches
    first, it compiles itself should this process, at the lowest priority on a loaded
    machine, not have got to it, the larger round operators being cached by then (MIS-2
    first, the session compiled ``decide`` itself in 3 of 3 cold runs on a loaded 2-core
    machine). MIS-2 with fixed (``"quality"``) statuses next: on the host its column pass is
    a row operator of its own (``mis.LEAST_CLOSED``, a quarter of a second), which MIS-1's
    rounds do not use and these statuses reach without the hashed ones. Then the partitioner (its compiled steps outside the backend, initial
    partition and refinement, run on either backend and take long to compile: a session
    that partitions a few seconds in finds them cached), into 2 parts and into 8 (direct
    k-way FM: a first ``partition(A, 8)`` of Laplace3D 30³ after the warm-up took 10.7 s
    without it, 1.3 s with it), then the other everyday calls.
    Then the numba calls compile the serial twins (kernels/threads.py) and dtypes that the
    same calls on a graph of any size below the parallel threshold use."""
    import gbgraph as gg

    pattern, matrix, absolute = _small_graphs()
    calls = (lambda b: gg.mis1(pattern, backend=b), lambda b: gg.mis2(pattern, "quality", backend=b),
             lambda b: gg.mis2(pattern, backend=b),
             lambda b: gg.partition(absolute, 2, backend=b), lambda b: gg.partition(absolute, 8, backend=b),
             lambda b: gg.color(pattern, backend=b),
             lambda b: gg.aggregate(matrix, backend=b), lambda b: gg.coarsen(matrix, backend=b),
             lambda b: gg.color(pattern, distance=2, backend=b))
    for call in calls:
        call("suitesparse")
    gg.as_graph(gg.generators.laplace3d(4))  # the generator's and as_graph's kernels, for later sessions
    for call in calls:
        call("numba")
    gg.mis2(_irregular_graph(), backend="numba")  # the twins of MIS-2's operators for irregular graphs: 1.4 s


def _irregular_graph(n=5000):
    """A path with a chord from every third vertex: row lengths that change from row to row,
    on more rows than MIS-2's sample (``mis._irregular``)."""
    import numpy as np
    import scipy.sparse as sp

    rows = np.concatenate((np.arange(n - 1), np.arange(0, n - 2, 3)))
    cols = np.concatenate((np.arange(1, n), np.arange(2, n, 3)))
    upper = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    return (upper + upper.T).tocsr()


def _small_graphs(size=4):
    """(pattern, matrix, absolute): the Graphs that :func:`gbgraph.as_graph` makes of
    ``A = laplace3d(size)`` with ``weights=False``, of A and of ``abs(A)``, made by scipy and
    numpy (tests/test_first_use.py checks that they are equal)."""
    import numpy as np
    import scipy.sparse as sp

    from .graph import _INPUT_CLOSED, Graph

    path = sp.diags_array([np.ones(size - 1), np.ones(size - 1)], offsets=[-1, 1], shape=(size, size))
    eye = sp.eye_array(size)
    closed = (sp.kron(sp.kron(eye, eye), path) + sp.kron(sp.kron(eye, path), eye) + sp.kron(sp.kron(path, eye), eye)
              + sp.eye_array(size ** 3)).tocsr()
    closed.sort_indices()
    n = closed.shape[0]
    closed_indptr, closed_indices = closed.indptr.astype(np.int64), closed.indices.astype(np.int32)
    rows = np.repeat(np.arange(n), np.diff(closed_indptr))
    off = closed_indices != rows
    indptr, indices = closed_indptr - np.arange(n + 1), closed_indices[off]
    graphs = tuple(Graph(n, indptr.copy(), indices.copy(), weights) for weights in
                   (None, np.full(indices.size, -1.0), np.ones(indices.size)))
    for graph in graphs:
        graph._cache[_INPUT_CLOSED] = (closed_indptr, closed_indices)
    return graphs


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
