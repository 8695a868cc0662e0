"""The MPI exchanges of the mpi backend: mpi4py collectives on numpy buffers, counted.

Every transfer is one of four collectives of the communicator: ``Alltoallv`` (ghost
requests and replies, entries pushed to their owners, rows redistributed), ``Alltoall`` of
the counts that precede it when the receiver cannot compute them, ``Allgatherv`` (a
protocol array every rank gets whole) and ``allreduce``/``allgather`` of a few scalars
(counts, reductions). :class:`Traffic` counts what each rank sends to the others, so that
benchmarks can report the bytes and messages of a round.
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["Exchange", "Traffic"]

_INT32 = np.iinfo(np.int32)


@dataclass
class Traffic:
    """What this rank sent to other ranks since the last :meth:`reset`.

    Attributes
    ----------
    bytes : int
        Payload bytes of the data exchanges (``Alltoallv``, ``Allgatherv``, the counts).
    messages : int
        Point-to-point messages those stand for: one per other rank with a non-empty part.
    collectives : int
        Collective calls of every kind, scalar reductions included.
    """

    bytes: int = 0
    messages: int = 0
    collectives: int = 0

    def reset(self):
        """Set every count to 0; returns the counts before, as a dict."""
        before = dict(bytes=self.bytes, messages=self.messages, collectives=self.collectives)
        self.bytes = self.messages = self.collectives = 0
        return before


class Exchange:
    """The collectives of one communicator, on numpy buffers.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        An intracommunicator; every rank of it must make the same calls in the same order.

    Examples
    --------
    >>> from mpi4py import MPI
    >>> ex = Exchange(MPI.COMM_SELF)
    >>> ex.allgatherv(np.arange(3)).tolist(), ex.allreduce(2)
    ([0, 1, 2], 2)
    """

    def __init__(self, comm):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.traffic = Traffic()

    def alltoallv(self, send, sendcounts, recvcounts=None):
        """Send ``send[...]`` in consecutive parts, ``sendcounts[r]`` entries to rank r.

        Parameters
        ----------
        send : numpy.ndarray
            One-dimensional, ordered by destination rank; numbers, bools or records.
        sendcounts : array of int
            Entries for each rank.
        recvcounts : array of int, optional
            Entries coming from each rank, when the caller knows them; None exchanges them
            first (one ``Alltoall``).

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            The received entries ordered by source rank (``send``'s dtype), and the counts.
        """
        sendcounts = np.asarray(sendcounts, dtype=np.int64)
        if recvcounts is None:
            recvcounts = np.empty(self.size, dtype=np.int64)
            self.comm.Alltoall(sendcounts, recvcounts)  # the counts, one int64 per pair of ranks
            self._count(sendcounts.itemsize * (self.size - 1), self.size - 1)
        recvcounts = np.asarray(recvcounts, dtype=np.int64)
        send = np.ascontiguousarray(send)
        # bool and records (a value with its presence flag) have no MPI type: sent as bytes
        raw = send.dtype == np.bool_ or send.dtype.fields is not None
        width = send.dtype.itemsize if raw else 1
        wire = send.view(np.uint8) if raw else send
        recv = np.empty(int(recvcounts.sum()) * width, dtype=wire.dtype)
        self.comm.Alltoallv([wire, (sendcounts * width, _displacements(sendcounts * width))],
                            [recv, (recvcounts * width, _displacements(recvcounts * width))])
        others = np.arange(self.size) != self.rank
        self._count(int(sendcounts[others].sum()) * send.dtype.itemsize, int(np.count_nonzero(sendcounts[others])))
        return (recv.view(send.dtype) if raw else recv), recvcounts

    def allgatherv(self, local):
        """Every rank's ``local`` array, concatenated in rank order, on every rank.

        int64 arrays whose values all fit in int32 (positions below 2³¹, labels, counts) cross
        as int32 and are widened on arrival: the ranges ride on the count exchange, so halving
        the bytes costs no collective.
        """
        local = np.ascontiguousarray(local)
        wire = local.view(np.uint8) if local.dtype == np.bool_ else local
        lo, hi = (int(wire.min()), int(wire.max())) if wire.size and wire.dtype == np.int64 else (0, 0)
        counts, lows, highs = np.array(self.comm.allgather((wire.size, lo, hi)), dtype=np.int64).T
        if wire.dtype == np.int64 and lows.min() >= _INT32.min and highs.max() <= _INT32.max:
            wire = wire.astype(np.int32)
        recv = np.empty(int(counts.sum()), dtype=wire.dtype)
        self.comm.Allgatherv(wire, [recv, (counts, _displacements(counts))])
        self._count(wire.nbytes * (self.size - 1), (self.size - 1) * bool(wire.size), calls=2)
        if local.dtype == np.bool_:
            return recv.view(np.bool_)
        return recv.astype(np.int64) if recv.dtype != local.dtype else recv

    def allreduce(self, value):
        """The sum of an integer over the ranks."""
        self._count(8 * (self.size - 1), 0)
        return self.comm.allreduce(int(value))

    def allgather(self, value):
        """A small picklable value of every rank, as a list in rank order."""
        self._count(0, 0)
        return self.comm.allgather(value)

    def _count(self, nbytes, messages, calls=1):
        self.traffic.bytes += nbytes
        self.traffic.messages += messages
        self.traffic.collectives += calls


def _displacements(counts):
    displs = np.zeros(counts.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=displs[1:])
    return displs
