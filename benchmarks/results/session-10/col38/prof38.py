"""Where a cupy call's host time goes (issue 38), Laplace3D 100³ prepared on the GPU:
CUDA-event times of cupy and native, then cProfile over 20 synchronised cupy calls.

    python prof38.py OUTDIR [--sizes 100]
"""
import cProfile
import io
import pstats
import sys
import time

import cupy
import cupyx.scipy.sparse as csp
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.generators import laplace3d

sys.path.insert(0, "benchmarks")
from bench_gpu import gpu_ms  # noqa: E402

CALLS = {"mis2": lambda G, be: gg.mis2(G, backend=be),
         "aggregate": lambda G, be: gg.aggregate(G, backend=be),
         "color": lambda G, be: gg.color(G, backend=be),
         "hec": lambda G, be: gg.coarse_mapping(G, "hec", backend=be)}


def main(out, size=100):
    A = csp.csr_matrix(sp.csr_matrix(laplace3d(size)))
    G = gg.as_graph(A, weights=False)
    summary = []
    for name, call in CALLS.items():
        cupy_ms = gpu_ms(lambda: call(G, "cupy"), 21, 3)
        native_ms = gpu_ms(lambda: call(G, "native"), 21, 3)
        t = time.perf_counter()
        for _ in range(20):
            call(G, "cupy")
        cupy.cuda.Device().synchronize()
        host_ms = (time.perf_counter() - t) / 20 * 1e3
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(20):
            call(G, "cupy")
            cupy.cuda.Device().synchronize()
        profile.disable()
        text = io.StringIO()
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats("tottime").print_stats(35)
        stats.sort_stats("cumulative").print_stats(60)
        line = f"{name} {size}^3: cupy {cupy_ms:.3f} ms, native {native_ms:.3f} ms, price {cupy_ms / native_ms:.2f}, host-timed cupy {host_ms:.3f} ms"
        summary.append(line)
        print(line, flush=True)
        with open(f"{out}/prof-{name}-{size}.txt", "w") as f:
            f.write(line + "\n(cProfile over 20 calls)\n" + text.getvalue())
    with open(f"{out}/prof-summary-{size}.txt", "w") as f:
        f.write("\n".join(summary) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], *(int(x) for x in sys.argv[2:]))
