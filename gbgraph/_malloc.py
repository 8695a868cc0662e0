"""Keep freed large blocks inside the process (glibc only).

gbgraph's rounds allocate and free vectors of n entries many times. glibc hands blocks of a
few megabytes back to the kernel when they are freed and maps fresh pages for the next
allocation, which the kernel must zero: on Laplace3D 100³ that page-fault traffic took a
third of MIS-2's time (214 ms against 138-158 ms, 2-core VM). Raising glibc's mmap and trim
thresholds lets freed blocks be reused instead, at the price of the process keeping up to
``_TRIM`` bytes of free heap. Set ``GBGRAPH_MALLOPT=0`` to leave malloc as it is.
"""

import ctypes
import ctypes.util
import functools
import os
import platform

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP = 256 << 20
_TRIM = 512 << 20


@functools.cache
def keep_freed_blocks():
    """Apply the thresholds once (later calls return the first's answer, finding libc
    costs a subprocess); returns True if they were set."""
    if os.environ.get("GBGRAPH_MALLOPT", "1") == "0" or platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, _MMAP)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, _TRIM))
