"""Per-phase one-thread CPU time of coarse_by_sort on captured inputs (the serial twins)."""
import sys, time, glob, os, numpy as np
import gbgraph
from gbgraph.backends.numba.kernels import coarse as C
from gbgraph.backends.numba.kernels.threads import serial_twin as S
import numba
numba.set_num_threads(1)
clock = time.process_time
def run(f):
    d = np.load(f)
    indptr, indices, labels, k = d["indptr"], d["indices"], d["labels"], int(d["k"])
    weighted, lde = bool(d["weighted"]), bool(d["lde"])
    weights = d["weights"]
    T = {}
    def t(name, fn):
        s = clock(); r = fn(); T[name] = T.get(name, 0) + clock() - s; return r
    threads = 1
    key_type = np.empty(0, np.int32)
    fine = C._ranges(indptr, threads)
    room = np.zeros((threads, k), np.int64)
    estimate = np.zeros(k if lde else 0, np.int64)
    t("room", lambda: S(C._room_each)(indptr, indices, labels, fine, lde, room))
    if lde: estimate[:] = C._column_sums(room)
    def alloc():
        start = C._starts(room); end = start.copy()
        keys = np.empty(start[-1, -1] + room[-1, -1], np.int32); spread = np.empty(keys.size if weighted else 0)
        return start, end, keys, spread
    start, end, keys, spread = t("alloc", alloc)
    t("scatter", lambda: S(C._scatter_by_row_each)(indptr, indices, labels, weights, estimate, fine, end, keys, spread))
    aggregates = C._ranges(C._pointers(C._column_sums(room)), threads)
    degree = np.empty(k, np.int64); counts = np.empty(0 if weighted else keys.size, np.int64)
    t("rows", lambda: S(C._rows_each)(start, end, keys, spread, counts, aggregates, degree))
    def pack():
        coarse_ptr = C._pointers(degree)
        oc = np.empty(coarse_ptr[-1], np.int64); os_ = np.empty(coarse_ptr[-1] if weighted else 0)
        ocnt = np.empty(0 if weighted else coarse_ptr[-1], np.int64)
        S(C._pack_each)(start, coarse_ptr, aggregates, keys, spread, counts, oc, os_, ocnt)
        return coarse_ptr, oc, os_ if weighted else ocnt
    cp, cc, cv = t("pack", pack)
    if lde: t("add_transpose", lambda: S(C._add_transpose)(cp, cc, cv, 1))
    s = clock(); C.coarse_by_sort(indptr, indices, labels, k, weights if weighted else None, lde); T["total(call)"] = clock() - s
    crossing = int((end - start).sum())
    return T, dict(n=labels.size, nnz=indices.size, k=k, crossing=crossing, coarse_nnz=int(cc.size), w=weighted, lde=lde)
files = sorted(glob.glob("/tmp/coarse39/*.npz")) if len(sys.argv) < 2 else sys.argv[1:]
for f in files: run(f)  # compile
for f in files:
    reps = [run(f) for _ in range(5)]
    info = reps[0][1]
    med = {k: 1e3 * float(np.median([r[0][k] for r in reps])) for k in reps[0][0]}
    print(os.path.basename(f)[:-4], info, " ".join(f"{k} {v:.1f}" for k, v in med.items()), flush=True)
