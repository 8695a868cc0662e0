"""Ghost replies GPU to GPU: NCCL's point-to-point sends between the ranks' devices.

With its blocks on the GPU (``mpi-cupy``), a product's ghost exchange (:func:`.moves.with_ghosts`)
answers each request with the owner's values and presence flags at the asked positions. On
the host path these are gathered on the owner's GPU, copied to the host, sent by MPI's
``Alltoallv`` and copied to the asker's GPU, where they are placed among its block. Here they
stay on the devices: gathered into a device buffer ordered by asking rank, sent by
``ncclSend``/``ncclRecv`` pairs in one NCCL group (NCCL's alltoallv), received into a device
buffer ordered by owner, and placed from it. The requests (a bit per ghost column, packed on
the host from what the host knows: the mask's rows) and every other exchange stay on MPI.

Used where every rank of the communicator has a GPU of its own (the ranks of a node no more
than its GPUs: NCCL refuses two ranks on one device) and CuPy has NCCL
(``cupy.cuda.nccl``, from the ``nvidia-nccl`` wheel of the CUDA version); else, or with
``MPIBackend(..., nccl=False)``, the replies go through the host. The results are the same:
the same values are placed at the same positions.
"""

import warnings

import numpy as np

__all__ = ["DeviceExchange", "usable"]


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


class DeviceExchange:
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
        self.traffic = traffic

    @classmethod
    def made(cls, comm, traffic):
        """A DeviceExchange where NCCL starts on every rank, else None (a warning names the
        error; the replies then go through the host). Collective."""
        try:
            made, error = cls(comm, traffic), None
        except Exception as raised:  # noqa: BLE001 - NCCL's and CUDA's errors: every rank falls back alike
            made, error = None, raised
        if comm.allreduce(int(made is not None), op=_mpi().MIN):
            return made
        if error is not None:
            warnings.warn(f"NCCL did not start ({type(error).__name__}: {error}); the ghost replies go through "
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

    def replies(self, u, at, sendcounts, recvcounts):
        """The owners' answers to a ghost request, on the devices: this rank's vector ``u``
        (a cupy Vector, its block) read at local positions ``at`` (numpy, ordered by asking
        rank, ``sendcounts`` each), exchanged; returns ``(values, present)``, device arrays
        ordered by owner (``recvcounts`` from each)."""
        cupy = self.cupy
        block, present = u.dense()  # on the device: u's values at every position, and presence
        at = cupy.asarray(at)
        flags = cupy.ones(at.size, bool) if present is None else present[at].astype(bool)
        return tuple(self.alltoallv((block[at], flags), sendcounts, recvcounts))

    def array(self, x):
        """A host array on this rank's device."""
        return self.cupy.asarray(x)


def _mpi():
    from mpi4py import MPI

    return MPI


def _starts(counts):
    starts = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return starts
