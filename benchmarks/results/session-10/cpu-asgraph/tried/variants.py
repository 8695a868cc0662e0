import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../.."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, scipy.sparse as sp
from common import matrix
from gbgraph.backends.numba.kernels import canonical
from vdefs import floor_lookup, floor_read, push, t

for spec in ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    ip, ix = A.indptr, A.indices
    if spec.startswith(("lap", "ela")):
        B = sp.csr_matrix(A); B.setdiag(0); B.eliminate_zeros(); ip, ix = B.indptr, B.indices
    print(push(ip, ix)[0], floor_lookup(ip, ix))
    print(spec.split("/")[-1], open("/proc/loadavg").read().split()[0], " ".join(f"{name} {t(f):.2f}" for name, f in [
        ("spmv", lambda: A @ x), ("scan", lambda: canonical._scan_rows.serial and canonical.scan_rows(ip, ix, None, False)),
        ("read", lambda: floor_read(ip, ix)), ("lookup", lambda: floor_lookup(ip, ix)), ("push", lambda: push(ip, ix))]), flush=True)
