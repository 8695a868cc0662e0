"""Rounds of a worklist algorithm recorded once as a CUDA graph and replayed.

A round issues a dozen kernels or more; launched from Python each costs microseconds of host
time, more than the kernel itself once the worklists are short. :func:`iterate` gives the
vectors of the first round their entry counts on the device and records that round with
stream capture. A round that returns vectors like the ones it took (same capacities and
types) issues the same kernels on the same buffers every time, so each later round is one
graph launch and one read of the worklist's count. A round that brings data to the host
cannot be recorded: it runs eagerly, as on the CPU.

While recording, every allocation is kept (none returns to CuPy's pool), so replays write
to buffers nothing else uses; at the end of the recorded round the results are copied over
the round's inputs, and the round number, which the step receives as a device scalar, is
incremented on the device.
"""

import functools

import cupy

from . import kernels
from .containers import Vector

__all__ = ["captured", "iterate"]


def iterate(step, state, first, stop):
    """The cupy backend's :meth:`~gbgraph.backends.base.Backend.iterate`."""
    global recordings
    state, r, replay, record = tuple(state), first, None, True
    while (stop is None or r < stop) and _count(state[0]):
        if replay is not None:
            replay.launch()
        elif record:
            replay = _Replay(step, tuple(_counted(v) for v in state), r)
            # a round whose results differ in kind from its inputs is recorded again next time
            state, record = replay.results, replay.recorded
            replay = replay if replay.replayable else None
            recordings += replay is not None
        else:
            state = tuple(step(*state, r))
        r += 1
    return state, r


#: Rounds recorded as CUDA graphs so far (tests check that an algorithm's rounds replay).
recordings = 0


def _count(v):
    """v's entry count, read without trimming its buffers (a replay writes into them)."""
    return int(v.count.get()[0]) if v.count is not None else v.nvals


def _counted(v):
    """v with its entry count on the device and explicit indices (a full vector lists
    0..n-1): the form a recorded round reads and writes back."""
    if v.count is not None:
        return v
    count = cupy.full(1, v.nvals, cupy.int64)
    indices = cupy.arange(v.size, dtype=cupy.int64) if v.indices is None else v.indices
    return Vector(v.size, indices, v.values, count)


def _signature(state):
    return tuple((v.size, v.capacity, v.indices.dtype, None if v.values is None else v.values.dtype) for v in state)


class _Replay:
    """A round recorded on the buffers of ``state`` (counted vectors) and run once.

    ``results`` is the state after that round. When the round returns vectors like the ones
    it took (``replayable``), the recording ends by copying its results over ``state`` and
    advancing the round number, so that each :meth:`launch` runs the next round; ``results``
    is then ``state`` itself. A round that cannot be recorded (it synchronises with the
    host) runs eagerly instead, and ``recorded`` is False.
    """

    def __init__(self, step, state, r):
        pool = cupy.get_default_memory_pool()
        self._kept = []

        def keep(size):
            memory = pool.malloc(size)
            self._kept.append(memory)
            return memory

        self._round = cupy.full((), r, cupy.int64)
        copies = [kernels.copy_entries(v.values) for v in state]  # compiled before recording
        advance = kernels.advance()
        stream = _capture_stream(cupy.cuda.runtime.getDevice())
        self.recorded = True
        with cupy.cuda.using_allocator(keep), stream:
            stream.begin_capture()
            try:
                results = tuple(step(*state, self._round))
                self.replayable = all(v.count is not None and v.indices is not None for v in results) \
                    and _signature(results) == _signature(state)
                if self.replayable:
                    for copy, source, target in zip(copies, results, state):
                        copy(source, target)
                    advance(self._round)
            except Exception:
                _abandon(stream)
                self.recorded = False
            else:
                self._graph = stream.end_capture()
        if not self.recorded:
            self.replayable, self.results = False, tuple(step(*state, r))
            return
        self.launch()
        self.results = state if self.replayable else results

    def launch(self):
        self._graph.launch(stream=cupy.cuda.get_current_stream())


@functools.lru_cache(maxsize=None)
def _capture_stream(device):
    """One stream per device to record on: CuPy's pool keeps free blocks per stream, so
    recordings reuse the blocks earlier recordings released."""
    with cupy.cuda.Device(device):
        return cupy.cuda.Stream(non_blocking=True)


def _abandon(stream):
    try:
        stream.end_capture()
    except Exception:  # the capture was invalidated by the failure being reported
        pass


def captured(run):
    """``run``'s launches as a CUDA graph, captured on a stream of its own (a whole V-cycle, a
    Gauss-Seidel application: kernels on buffers allocated beforehand)."""
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            run()
        finally:
            graph = stream.end_capture()
    return graph
