import sys, time
import numpy as np
t0 = time.process_time()
import gbgraph as gg
from gbgraph.backends.numba.kernels import canonical
import scipy.sparse as sp
A = gg.generators.laplace3d(4)  # has its diagonal
t1 = time.process_time()
case = sys.argv[1]
if case == "cli":
    gg.as_graph(A)
elif case == "pattern":
    gg.as_graph(A, weights=False)
elif case == "both":
    gg.as_graph(A); gg.as_graph(A, weights=False)
elif case == "grow":
    B = A.copy(); B.setdiag(0); B.eliminate_zeros()
    t1 = time.process_time()
    gg.as_graph(B, weights=False, **({"closed": True} if "closed" in gg.as_graph.__code__.co_varnames else {}))
t2 = time.process_time()
print(f"{t2-t1:.3f}")
