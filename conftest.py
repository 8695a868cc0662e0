"""Collection rules for the whole repository (tests/ and the doctests in gbgraph/)."""

import importlib.util

# The GPU backend's modules import CuPy; without it, their doctests cannot be collected.
collect_ignore = [] if importlib.util.find_spec("cupy") else ["gbgraph/backends/cupy"]
