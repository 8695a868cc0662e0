"""``mpi-cupy`` on a communicator of one rank: the ``cupy`` backend's verbs, under its name.

With one rank there is no ghost column and no other rank to answer, so the layer of row
blocks has nothing to exchange; what it still did cost 2.2× the ``cupy`` backend on MIS-2
and 15× on aggregation (Laplace3D 200³, an H200): protocol arrays copied to the host and
gathered, each verb's translation in Python, MIS rounds run verb by verb instead of as
the ``cupy`` backend's compiled rounds, and the row operators of aggregation on the host
by numba. :class:`OneRankBackend` removes the layer: every verb is the ``cupy`` backend's,
on its containers, so the results are the ``cupy`` backend's (which equal the
``suitesparse`` backend's, as the mpi backend's do) and the protocol's arrays are CuPy
arrays on the rank's GPU, ``be.xp`` being ``cupy``: a result stays on the device until
the caller asks for it (``.get()``).

A :class:`~gbgraph.distributed.DistributedGraph` lives in host memory and is refused with a
``TypeError`` (as on the ``cupy`` backend); on one rank it holds the whole graph, which
:func:`gbgraph.distributed.gather` gives as CSR arrays for :func:`gbgraph.as_graph`.
"""

import abc

from ..base import Backend
from .exchange import Exchange

__all__ = ["OneRankBackend"]

#: The attributes of the protocol that are data, not verbs: taken from the local backend.
_DATA = ("name", "xp", "index_dtype", "shares_arrays")


class OneRankBackend(Backend):
    """The mpi backend of one rank with its blocks on the GPU: each verb is the local
    backend's, an error of the local backend raised with this backend's name.

    Made by :class:`~gbgraph.backends.mpi.MPIBackend` for ``local="cupy"`` and a
    communicator of one rank, it keeps the attributes that code written for the mpi backend
    reads: ``comm``, ``local`` (the :class:`~.local.Local` of the blocks), ``traffic``
    (always zero) and :meth:`block`.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        A communicator of one rank.
    local : Local
        The blocks' backend (:func:`~.local.local_backend`).

    Examples
    --------
    >>> from mpi4py import MPI
    >>> from gbgraph.backends.mpi.local import local_backend
    >>> be = OneRankBackend(MPI.COMM_SELF, local_backend("suitesparse"))
    >>> be.name, be.block(10)
    ('mpi-suitesparse', (0, 10))
    """

    def __init__(self, comm, local):
        self.comm = comm
        self.local = local
        self.ex = Exchange(comm)
        self.name = f"mpi-{local.name}"
        self.xp = local.backend.xp
        self.index_dtype = local.backend.index_dtype
        self.shares_arrays = local.backend.shares_arrays
        #: The ghost exchange on the devices (:mod:`.nccl`): none, with no other rank.
        self.device = None

    @property
    def traffic(self):
        """This rank's :class:`~.exchange.Traffic`: nothing is sent."""
        return self.ex.traffic

    def block(self, size):
        """``(0, size)``: the one rank holds every position."""
        return 0, int(size)

    def __getattr__(self, name):
        # what the local backend has beyond the protocol (its own helpers)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.local.backend, name)

    def __repr__(self):
        return f"<gbgraph backend {self.name!r} (one rank)>"


def _delegated(verb):
    """The method ``verb`` that calls the local backend's, renaming its
    NotImplementedError's backend to this one's."""
    def call(self, *args, **kwargs):
        try:
            return getattr(self.local.backend, verb)(*args, **kwargs)
        except NotImplementedError as error:
            message = str(error)
            prefix = f"{self.local.name}: "
            if not message.startswith(prefix):
                raise
            raise NotImplementedError(f"{self.name}: {message.removeprefix(prefix)}") from error

    call.__name__ = call.__qualname__ = verb
    call.__doc__ = f"The local backend's ``{verb}``."
    return call


for _verb in [k for k, v in vars(Backend).items() if callable(v) and not k.startswith("_") and k not in _DATA]:
    setattr(OneRankBackend, _verb, _delegated(_verb))
del _verb
abc.update_abstractmethods(OneRankBackend)
