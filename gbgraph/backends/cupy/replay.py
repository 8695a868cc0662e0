"""Rounds of a worklist algorithm recorded once as a CUDA graph and replayed.

The cupy backend's ``iterate`` first tries to compile the round into one kernel that loops on
the device (:mod:`.program`); a round that kernel cannot run (a verb or form it does not
trace, a read on the host) comes here.

A round issues a dozen kernels or more; launched from Python each costs microseconds of host
time, more than the kernel itself once the worklists are short. :func:`iterate` gives the
vectors of the first round their entry counts on the device and records that round with
stream capture. A round that returns vectors like the ones it took (same capacities and
types) issues the same kernels on the same buffers every time. With CUDA 12.4's conditional
graph nodes (through cuda-bindings), once a loop has run :data:`LOOP_AFTER` rounds, that round
becomes the body of a while node, which a last kernel keeps running while the worklist has
entries: one launch runs the rounds left, and the host reads nothing in between. Before
that, and without them, each round is one graph launch and one read of the worklist's count. A round that brings data to the host cannot be recorded: it
runs eagerly, as on the CPU.

While recording, every allocation is kept (none returns to CuPy's pool), so replays write
to buffers nothing else uses; at the end of the recorded round the results are copied over
the round's inputs, and the round number, which the step receives as a device scalar, is
incremented on the device.
"""

import functools

import cupy
import numpy as np

from . import kernels
from ..base import stalled
from .containers import Vector

__all__ = ["captured", "iterate", "resumed"]


def iterate(step, state, first, stop, check, stall=None):
    """The cupy backend's :meth:`~gbgraph.backends.base.Backend.iterate`."""
    global recordings
    state, r, due, replay, record, before = tuple(state), first, first, None, True, None
    while stop is None or r < stop:
        left = state[0].entry_count()
        if not left or stalled(before, left, stall):
            break
        before = left
        if check is not None and r >= due:
            rounds = check(tuple(_view(v) for v in state), r)
            if not rounds:
                break
            due = r + rounds
        bound = due if check is not None and (stop is None or due < stop) else stop
        # a stall test reads each round's count on the host: no while node
        if replay is not None and not replay.looped and r - replay.first >= LOOP_AFTER and stall is None:
            replay.loop()
        if replay is not None and replay.looped:  # the rounds up to the bound, on the device
            replay.launch(bound)
            r = int(replay.round.get())
            continue
        if replay is not None:
            replay.launch()
        elif record:
            replay = _Replay(step, tuple(_counted(v) for v in state), r)
            # a round whose results differ in kind from its inputs is recorded again next time
            state, record = replay.results, replay.recorded
            recordings += replay.replayable
            replay = replay if replay.replayable else None
        else:
            state = tuple(step(*state, r))
        r += 1
    return state, r


def resumed(step, state, resume):
    """Rounds ``state = step(*state, r)`` from ``r = 0`` while ``state[0]`` has entries, recorded
    once; when it has none, ``resume(state)`` (on the host) gives a vector like ``state[0]`` to
    go on with, or None to stop. Returns ``(state, r)``.

    The cupy backend's answer to ``Backend.fused("resumed_rounds")``: an algorithm whose test
    between rounds is device work inside the round (refine_jet's judge, which empties the
    worklist when the host has something to do) leaves the rounds only for that work, and
    comes back to the same recording, where :func:`iterate` would record the round again. The
    round is recorded as the body of a while node from the start (where the driver has them),
    since such a test bounds the rounds itself: a launch runs the rounds up to the next host
    work, where one launch a round and a read of the worklist's count cost about as much as
    the round's kernels (refine_jet's levels: 20-40 rounds each, seldom past LOOP_AFTER)."""
    global recordings
    replay = _Replay(step, tuple(_counted(v) for v in state), 0, looped=True)
    state, r = replay.results, 1
    recordings += replay.replayable
    while True:
        while state[0].entry_count():
            if not replay.replayable:  # eagerly, as on the CPU
                state = tuple(step(*state, r))
                r += 1
                continue
            if not replay.looped and r - replay.first >= LOOP_AFTER:
                replay.loop()
            replay.launch()
            r += 1
        more = resume(tuple(_view(v) for v in state))
        if more is None:
            return state, int(replay.round.get()) if replay.looped else r
        ready = more.count is None and more.nvals > 0  # entries the host knows of: no read before the launch
        more = _counted(more)
        if replay.replayable:
            replay._copies[0](more, state[0])  # into the recorded buffers
            if replay.looped and ready:
                replay.launch()
        else:
            state = (more,) + state[1:]


#: Rounds recorded as CUDA graphs so far (tests check that an algorithm's rounds replay).
recordings = 0

#: Rounds launched one by one before the rest run in a while node: recording the round again
#: and instantiating the node's graph costs time and the round's memory a second time, which
#: the loops of MIS-2, aggregation and coloring (ten rounds or so) do not win back; a BFS's
#: hundreds of levels do (Laplace3D 100³ on an H100: 22 -> 13 ms).
LOOP_AFTER = 32

#: Recorded rounds turned into while nodes so far (tests check that long loops get one).
loops = 0


def _view(v):
    """v for the host to read: reading trims a vector's buffers to its count, and a replay
    writes into the untrimmed ones."""
    return Vector(v.size, v.indices, v.values, v.count)


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
    is then ``state`` itself. :meth:`loop` makes the recorded round the body of a while node
    (CUDA 12.4+, through cuda-bindings), ended by a kernel that keeps it running while
    ``state[0]`` has entries and the round is below a bound: then one :meth:`launch` runs
    the rounds (``looped``), and the host reads nothing between them. A round that cannot be
    recorded (it synchronises with the host) runs eagerly instead, and ``recorded`` is False.
    With ``looped``, the first recording is already the while node's (where the driver has
    them and the round is replayable), and its first launch runs the rounds.
    """

    def __init__(self, step, state, r, looped=False):
        pool = cupy.get_default_memory_pool()
        kept = self._kept = []

        def keep(size):  # closes over the list, not self: no cycle keeps the buffers past the loop
            memory = pool.malloc(size)
            kept.append(memory)
            return memory

        self.first, self.round, self._state, self._step, self._keep = r, cupy.full((), r, cupy.int64), state, step, keep
        self._copies = [kernels.copy_entries(v.values) for v in state]  # compiled before recording
        self._advance = kernels.advance()
        self.recorded, self.looped = True, False
        if looped and self._while(first=True):  # the rounds up to an empty worklist, recorded once
            self.launch()
            self.results = state
            return
        stream = _capture_stream(cupy.cuda.runtime.getDevice())
        with cupy.cuda.using_allocator(keep), stream:
            stream.begin_capture()
            try:
                results = self._record()
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

    def _record(self):
        """The round's launches on the capturing stream; its results."""
        state = self._state
        results = tuple(self._step(*state, self.round))
        self.replayable = all(v.count is not None and v.indices is not None for v in results) \
            and _signature(results) == _signature(state)
        if self.replayable:
            for copy, source, target in zip(self._copies, results, state):
                copy(source, target)
            self._advance(self.round)
        return results

    def loop(self):
        """From now on, :meth:`launch` runs the rounds in a while node, where the driver
        has them (else it stays one round): the round is recorded again, through
        cuda-bindings, as the node's body, ended by the kernel that sets its condition."""
        self._while()

    def _while(self, first=False):
        """Records the round as the body of a while node (:meth:`loop`); whether it did: not
        where the driver has no while nodes, nor for a round that is not replayable (its
        capture is then dropped), nor, for the ``first`` recording, one that cannot be
        captured (the plain recording then finds that out again and runs it eagerly)."""
        global loops
        if not _while_nodes():
            return False
        bound = cupy.empty((), cupy.int64)  # the round the while node stops before
        node = _WhileNode.create()
        loop_while = kernels.loop_while()
        stream = _capture_stream(cupy.cuda.runtime.getDevice())
        with cupy.cuda.using_allocator(self._keep), stream:
            _checked(_cudart.cudaStreamBeginCapture(stream.ptr, _RELAXED))
            try:
                self._record()
                if self.replayable:
                    loop_while(self._state[0].count, self.round, bound, node.handle)
            except Exception:
                _abandon(stream)
                node.destroy()
                if first:
                    return False
                raise
            body = _checked(_cudart.cudaStreamEndCapture(stream.ptr))
        if not self.replayable:
            _checked(_cudart.cudaGraphDestroy(body))
            node.destroy()
            return False
        loops += 1
        self._bound, self._graph, self.looped = bound, node.around(body), True
        return True

    def launch(self, bound=None):
        """One round, or (``looped``) the rounds while the worklist has entries and the
        round number is below ``bound`` (None: no bound)."""
        if self.looped:
            self._bound.fill(np.iinfo(np.int64).max if bound is None else bound)
        self._graph.launch(stream=cupy.cuda.get_current_stream())


@functools.lru_cache(maxsize=None)
def _capture_stream(device):
    """One stream per device to record on: CuPy's pool keeps free blocks per stream, so
    recordings reuse the blocks earlier recordings released."""
    with cupy.cuda.Device(device):
        return cupy.cuda.Stream(non_blocking=True)


def _abandon(stream):
    try:
        stream.end_capture() if _cudart is None else _cudart.cudaStreamEndCapture(stream.ptr)
    except Exception:  # the capture was invalidated by the failure being reported
        pass


# ---- while nodes through cuda-bindings (CuPy's Graph has none) --------------------------------

try:
    from cuda.bindings import runtime as _cudart
except ImportError:  # no cuda-bindings: each recorded round is launched from the host
    _cudart = None

_RELAXED = None if _cudart is None else _cudart.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed  # as CuPy's


def _checked(result):
    """The values of a cuda-bindings call, or the error it returned raised."""
    if result[0] != _cudart.cudaError_t.cudaSuccess:
        raise cupy.cuda.runtime.CUDARuntimeError(int(result[0]))
    return result[1] if len(result) == 2 else result[1:]


class _Executable:
    """A cuda-bindings graph, instantiated once and launched any number of times."""

    def __init__(self, graph):
        self._exec = _checked(_cudart.cudaGraphInstantiate(graph, 0))
        _checked(_cudart.cudaGraphDestroy(graph))

    def launch(self, stream):
        _checked(_cudart.cudaGraphLaunch(self._exec, stream.ptr))

    def __del__(self):
        if getattr(self, "_exec", None) is not None:
            _cudart.cudaGraphExecDestroy(self._exec)


class _WhileNode:
    """A graph with one while node, created before its body is recorded, since the round's
    last kernel sets the node's condition through ``handle``."""

    def __init__(self, graph, handle):
        self._graph, self.handle = graph, handle

    @classmethod
    def create(cls):
        """A graph and the handle of its condition (1 at each launch, so the first round
        runs), or None where the CUDA graph API has no while nodes."""
        if not _while_nodes():
            return None
        graph = _checked(_cudart.cudaGraphCreate(0))
        return cls(graph, int(_checked(_cudart.cudaGraphConditionalHandleCreate(graph, 1, 1))))  # cudaGraphCondAssignDefault

    def destroy(self):
        """Drops the graph, unused."""
        _checked(_cudart.cudaGraphDestroy(self._graph))

    def around(self, body):
        """The graph that runs ``body`` (a recorded graph, cloned into the node; its last
        kernel sets the handle) while the condition holds, instantiated."""
        params = _cudart.cudaGraphNodeParams()
        params.type = _cudart.cudaGraphNodeType.cudaGraphNodeTypeConditional
        params.conditional.handle = self.handle
        params.conditional.type = _cudart.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
        params.conditional.size = 1
        _checked(_cudart.cudaGraphAddNode(self._graph, None, None, 0, params))
        inside = params.conditional.phGraph_out[0]
        _checked(_cudart.cudaGraphAddChildGraphNode(inside, None, 0, body))
        _checked(_cudart.cudaGraphDestroy(body))
        return _Executable(self._graph)


@functools.lru_cache(maxsize=None)
def _while_nodes():
    """Whether the driver and cuda-bindings give while nodes (CUDA 12.4+)."""
    return _cudart is not None and cupy.cuda.runtime.driverGetVersion() >= 12040 \
        and hasattr(_cudart.cudaGraphConditionalNodeType, "cudaGraphCondTypeWhile")


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
