"""Ghost values GPU to GPU: NCCL's point-to-point sends between the ranks' devices.

With its blocks on the GPU (``mpi-cupy``), a product's ghost exchange (:func:`.moves.with_ghosts`,
and the row operators' :func:`.operators._held`) is one exchange: each owner sends the
values and presence flags of its vector at every position the other ranks hold as ghosts
(:class:`.moves.Routes`' ``served``, agreed once per matrix), read into a device buffer
ordered by receiving rank; each rank places what it receives, ordered by owner, around
its block on the device. There is no request (a bit per ghost column, which the host path
sends first): the counts are the routes', known on both sides, so the host neither packs
bits nor waits for the device to learn which rows a mask holds, and the exchange is one
collective instead of two. The values at ghost columns no row of the mask reads are sent
too and never read (a product reads a row's columns only), so results are those of a
request: a plane of a 3D grid's ghosts is a few hundred KB, which NVLink moves in
microseconds, less than one round trip through the host.

:class:`DeviceExchange` sends the buffers by ``ncclSend``/``ncclRecv`` pairs in one NCCL
group (NCCL's alltoallv), where every rank of the communicator has a GPU of its own (the
ranks of a node no more than its GPUs: NCCL refuses two ranks on one device) and CuPy has
NCCL (``cupy.cuda.nccl``, from the ``nvidia-nccl`` wheel of the CUDA version);
:class:`HostExchange` sends the same buffers through the host and MPI (else, or with
``MPIBackend(..., nccl=False)``), one record per position. Both count the same bytes and
messages, and the results are the same: the same values are placed at the same positions.
"""

import warnings

import numpy as np

__all__ = ["DeviceExchange", "HostExchange", "usable"]

#: The NCCL communicators made in this process (:class:`DeviceExchange`), never destroyed.
_KEPT = []


def usable(comm):
    """Whether every rank of ``comm`` (of two ranks or more) has a GPU of its own and NCCL:
    the ranks of each node no more than its GPUs. Collective: every rank gets the same
    answer."""
    from mpi4py import MPI

    ok = True
    try:
        import cupy
        from cupy.cuda import nccl  # noqa: F401 - what the exchange needs

        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        ok = node.Get_size() <= cupy.cuda.runtime.getDeviceCount()
        node.Free()
    except (ImportError, RuntimeError):
        ok = False
    return comm.Get_size() > 1 and bool(comm.allreduce(int(ok), op=MPI.MIN))


class _Ghosts:
    """What both transports share: a matrix's ghost values, one exchange for several vectors."""

    def ghosts(self, routes, vectors):
        """Every vector's values and presence at every ghost column of the routes' matrix,
        one exchange for all: this rank's local vectors (cupy Vectors, its blocks) read at
        the positions the other ranks hold as ghosts, exchanged; returns a ``(values,
        present)`` pair of device arrays per vector, aligned with the matrix's
        ``columns.ghosts`` (which are sorted, so grouped by owner in rank order)."""
        cupy = self.cupy
        at = routes.on_device("served", cupy)
        arrays = []
        for u in vectors:
            block, present = u.dense()  # on the device: u's values at every position, and presence
            arrays += [block[at], cupy.ones(at.size, bool) if present is None else present[at].astype(bool)]
        received = self.alltoallv(arrays, routes.theirs, routes.mine)
        return list(zip(received[::2], received[1::2]))


class HostExchange(_Ghosts):
    """Device buffers exchanged through the host: copied down, sent by MPI's ``Alltoallv``
    as one record per position (one field per buffer), copied up.

    Parameters
    ----------
    ex : Exchange
        The ranks' MPI collectives (:class:`.exchange.Exchange`), which count the bytes.
    """

    def __init__(self, ex):
        import cupy

        self.cupy, self.ex = cupy, ex

    def alltoallv(self, arrays, sendcounts, recvcounts):
        """:meth:`DeviceExchange.alltoallv` through the host, for buffers of one length: one
        MPI collective of records."""
        cupy = self.cupy
        records = np.empty(arrays[0].size, dtype=[(f"f{k}", a.dtype) for k, a in enumerate(arrays)])
        for k, a in enumerate(arrays):
            records[f"f{k}"] = cupy.asnumpy(a)
        received, _ = self.ex.alltoallv(records, sendcounts, recvcounts)
        return [cupy.asarray(np.ascontiguousarray(received[f"f{k}"])) for k in range(len(arrays))]


class DeviceExchange(_Ghosts):
    """One NCCL communicator over the ranks of an MPI communicator, each on its current GPU.

    Parameters
    ----------
    comm : mpi4py.MPI.Intracomm
        Every rank makes it at once (NCCL's unique id, made by rank 0, is broadcast by MPI).
    traffic : Traffic
        Where the bytes and messages it sends are counted (:class:`.exchange.Traffic`).
    """

    def __init__(self, comm, traffic):
        import cupy
        from cupy.cuda import nccl

        self.cupy, self.nccl = cupy, nccl
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        uid = comm.bcast(nccl.get_unique_id() if self.rank == 0 else None)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)
        # kept until the process exits: ncclCommDestroy waits for the other ranks, and the
        # garbage collector of each rank would call it at a moment of its own (a backend in
        # a reference cycle), where the others may wait in a collective: a deadlock
        _KEPT.append(self.comm)
        self.traffic = traffic

    @classmethod
    def made(cls, comm, traffic):
        """A DeviceExchange where NCCL starts on every rank, else None (a warning names the
        error; the ghost values then go through the host). Collective."""
        try:
            made, error = cls(comm, traffic), None
        except Exception as raised:  # noqa: BLE001 - NCCL's and CUDA's errors: every rank falls back alike
            made, error = None, raised
        if comm.allreduce(int(made is not None), op=_mpi().MIN):
            return made
        if error is not None:
            warnings.warn(f"NCCL did not start ({type(error).__name__}: {error}); the ghost values go through "
                          "the host", RuntimeWarning, stacklevel=3)
        return None

    def alltoallv(self, arrays, sendcounts, recvcounts):
        """Each device array of ``arrays`` sent in consecutive parts, ``sendcounts[r]``
        entries to rank r, as one NCCL group; returns the received device arrays, ordered by
        source rank (``recvcounts[r]`` entries from rank r, which both sides know)."""
        cupy, nccl = self.cupy, self.nccl
        sendcounts, recvcounts = np.asarray(sendcounts, np.int64), np.asarray(recvcounts, np.int64)
        send_at, recv_at = _starts(sendcounts), _starts(recvcounts)
        arrays = [cupy.ascontiguousarray(a) for a in arrays]
        received = [cupy.empty(int(recv_at[-1]), dtype=a.dtype) for a in arrays]
        stream = cupy.cuda.get_current_stream().ptr
        nccl.groupStart()
        for r in range(self.size):
            if r == self.rank:
                continue
            for a, b in zip(arrays, received):
                width = a.dtype.itemsize
                if sendcounts[r]:
                    self.comm.send(a.data.ptr + int(send_at[r]) * width, int(sendcounts[r]) * width, nccl.NCCL_INT8, r,
                                   stream)
                if recvcounts[r]:
                    self.comm.recv(b.data.ptr + int(recv_at[r]) * width, int(recvcounts[r]) * width, nccl.NCCL_INT8, r,
                                   stream)
        nccl.groupEnd()
        if sendcounts[self.rank]:  # a rank's part for itself, copied on its device
            mine = slice(int(send_at[self.rank]), int(send_at[self.rank + 1]))
            for a, b in zip(arrays, received):
                b[int(recv_at[self.rank]):int(recv_at[self.rank + 1])] = a[mine]
        others = np.arange(self.size) != self.rank
        self.traffic.bytes += int(sendcounts[others].sum()) * sum(a.dtype.itemsize for a in arrays)
        self.traffic.messages += int(np.count_nonzero(sendcounts[others]))
        self.traffic.collectives += 1
        return received


def _mpi():
    from mpi4py import MPI

    return MPI


def _starts(counts):
    starts = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return starts
