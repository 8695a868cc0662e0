"""Progress of long steps, reported to a display that the caller installs.

Library code announces what it does (:func:`report`, :func:`readable`); nothing is shown and
nothing is computed for it unless a listener is installed with :func:`listening`, as the
command line does on a terminal. So library calls stay silent, and a step costs one look-up
of a context variable. Events and their fields:

``"read"``
    ``done``, ``total``: bytes of a Matrix Market file read so far, and its size.
``"hierarchy"``
    ``n``: :func:`gbgraph.coarsen` starts a hierarchy of a graph of n vertices.
``"level"``
    ``level``, ``n``: it added a level of n vertices.
``"plot"``
    ``done``, ``total``, ``what``: :mod:`gbgraph.plot` has laid out ``done`` of ``total``
    levels (``total`` is None while it coarsens); ``what`` names the last.
``"output"``
    no fields: the command line is about to print its results (the display clears itself).
"""

import contextlib
import contextvars
import os

__all__ = ["listening", "readable", "report"]

_LISTENER = contextvars.ContextVar("gbgraph_progress", default=None)


@contextlib.contextmanager
def listening(listener):
    """Send the events of the enclosed code to ``listener(event, fields)``."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def report(event, **fields):
    """Tell the listener, if any, that ``event`` happened."""
    listener = _LISTENER.get()
    if listener is not None:
        listener(event, fields)


def readable(path):
    """What to read ``path`` from: the path itself, or while a listener listens an open binary
    file that reports ``"read"`` events as it is read (a context manager either way)."""
    listener = _LISTENER.get()
    if listener is None:
        return contextlib.nullcontext(path)
    return _Counting(open(path, "rb"), os.path.getsize(path), listener)


class _Counting:
    """A binary file that reports how far into it each read got. Not an ``io.BufferedReader``
    over a raw counter: scipy's reader asks for more than one raw read returns, assumes it got
    it and seeks back by the difference."""

    def __init__(self, file, total, listener):
        self._file, self._total, self._listener = file, total, listener

    def _reported(self, result):
        self._listener("read", {"done": self._file.tell(), "total": self._total})
        return result

    def read(self, size=-1):
        return self._reported(self._file.read(size))

    def read1(self, size=-1):
        return self._reported(self._file.read1(size))

    def readinto(self, buffer):
        return self._reported(self._file.readinto(buffer))

    def __getattr__(self, name):  # seek, tell, close, ...: the file's own
        return getattr(self._file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()
