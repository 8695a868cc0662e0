"""Tried and not kept (session 13, co39): BETTER_GROUP reading its row in chunks of CHUNK columns, their
labels gathered first into a local buffer (independent loads) and then scanned; the same groups as
aggregation.BETTER_GROUP on the call captured from gg.aggregate(coAuthorsDBLP), one thread, CPU time.

    PYTHONPATH=<tree> python better_group_chunked.py /work/shared/data/coAuthorsDBLP.mtx.gz 8
"""
import sys, time
import numpy as np, scipy.sparse as sp
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from common import matrix
import gbgraph as gg
from gbgraph.algorithms import aggregation as ag
from gbgraph.backends.operators import RowOperator, local
gg.backends.set_threads(1)
be = gg.backends.backend("numba")

def _better_group_chunked(i, start, stop, cols, vals, label, is_root, group_size):
    own = label[i]
    if is_root[i]:
        return own, True
    if own >= 0:
        touched = 0
        p = np.uint64(start)
        while p < np.uint64(stop) and touched < 2:
            touched += is_root[np.uint64(cols[p])]
            p += np.uint64(1)
        if touched < 2:
            return own, True
    slot = local(SLOTS, np.int64)
    got = local(GOT, np.int64)
    own_key = 0
    m = 0
    p = np.uint64(start)
    end = np.uint64(stop)
    full = False
    while p < end and not full:
        count = min(np.uint64(CHUNK), end - p)
        for q in range(count):
            j = np.uint64(cols[p + q])
            got[q] = label[j]
        q = np.uint64(0)
        while q < count:
            g = got[q]
            j = np.uint64(cols[p + q])
            q += np.uint64(1)
            if g < 0:
                continue
            if g == own:
                own_key += np.int64(1) + (np.int64(is_root[j]) << 32)
                continue
            s = 0
            while s < m and slot[s] != g:
                s += 1
            if s == m:
                if m == LIMIT:
                    full = True
                    break
                slot[m] = g
                slot[LIMIT + m] = 0
                slot[2 * LIMIT + m] = group_size[j]
                m += 1
            slot[LIMIT + s] += np.int64(1) + (np.int64(is_root[j]) << 32)
        p += q
    while own >= 0 and p < end:
        j = np.uint64(cols[p])
        p += np.uint64(1)
        if label[j] == own:
            own_key += np.int64(1) + (np.int64(is_root[j]) << 32)
    chosen = -1
    for s in range(m):
        if chosen < 0 or slot[LIMIT + s] > slot[LIMIT + chosen] or slot[LIMIT + s] == slot[LIMIT + chosen] \
                and slot[2 * LIMIT + s] < slot[2 * LIMIT + chosen]:
            chosen = s
    if chosen < 0:
        return own, True
    key = slot[LIMIT + chosen]
    size = slot[2 * LIMIT + chosen]
    if key > own_key or key == own_key and own >= 0 and size < group_size[i]:
        return slot[chosen], True
    return own, True

CH = int(sys.argv[2]) if len(sys.argv) > 2 else 8
NEW = RowOperator(_better_group_chunked, fill=(-1, False, 0), constants={"LIMIT": ag.TRACKED, "SLOTS": 3 * ag.TRACKED, "CHUNK": CH, "GOT": CH}, name=f"better_group_chunked{CH}")
A = sp.csr_matrix(matrix(sys.argv[1])); G = gg.as_graph(A)
cap = {}
f = be.mxv
def g(op, M, u, mask=None, **k):
    if getattr(op, "name", "") == "better_group": cap.update(M=M, u=(be.full(u[0].size, be.values(u[0]).copy(), "int64"), u[1], u[2]), mask=mask, k=k)
    return f(op, M, u, mask=mask, **k)
be.mxv = g
gg.aggregate(G, backend=be); be.mxv = f
M, u, mask, k = cap["M"], cap["u"], cap["mask"], cap["k"]
ref = f(ag.BETTER_GROUP, M, u, mask=mask, **k); new = f(NEW, M, u, mask=mask, **k)
assert (be.values(ref) == be.values(new)).all() and (be.indices(ref) == be.indices(new)).all()
# more checks: the whole aggregate with NEW swapped in
for rep in range(3):
    for name, op in (("old", ag.BETTER_GROUP), ("chunked", NEW)):
        c = time.process_time()
        for _ in range(10): f(op, M, u, mask=mask, **k)
        print(name, f"{(time.process_time() - c) * 100:.2f} ms", flush=True)
