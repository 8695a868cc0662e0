"""Render the pictures of docs/plotting.md into docs/images/ (or --out), headless.

    python docs/make_pictures.py            # rewrites docs/images/*.png
    python docs/make_pictures.py --out DIR  # elsewhere (tests/test_plot.py does, in CI)

Each picture is one call of gg.plot on a graph that gbgraph ships or generates, so the
pictures can be remade anywhere; the code here is the code docs/plotting.md shows.
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # headless: no display needed, in CI or over ssh

import matplotlib.pyplot as plt  # noqa: E402

import gbgraph as gg  # noqa: E402


def aggregates():
    A = gg.generators.laplace3d(30, 30, 1)  # the 5-point Laplacian of a 30 × 30 grid
    labels = gg.aggregate(A).labels
    return gg.plot.aggregates(A, labels, gg.generators.grid_coordinates(30, 30, 1))


def aggregates_layout():
    A = gg.datasets.load("fe_4elt2")  # a 2-D mesh without coordinates: drawn by gg.plot.layout
    return gg.plot.aggregates(A, gg.aggregate(A).labels)


def partition():
    A = gg.datasets.load("fe_4elt2")  # a 2-D mesh without coordinates: drawn by gg.plot.layout
    parts = gg.partition(A, 8).parts
    return gg.plot.partition(A, parts)


def hierarchy():
    h = gg.coarsen(gg.generators.laplace3d(60) != 0, "hec")  # 216,000 vertices, unit weights
    return gg.plot.hierarchy(h)


def spy():
    A = gg.datasets.load("fe_4elt2")
    C = gg.coarse_graph(A, gg.aggregate(A).labels)  # the graph of the aggregates, Pᵀ A P
    return gg.plot.spy(C)


PICTURES = {"aggregates": aggregates, "aggregates_layout": aggregates_layout, "partition": partition, "hierarchy": hierarchy, "spy": spy}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent / "images"),
                        help="folder of the PNG files (default: docs/images)")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in PICTURES.items():
        ax = draw()
        ax.figure.savefig(out / f"{name}.png", dpi=100, bbox_inches="tight")
        plt.close(ax.figure)
        print(out / f"{name}.png")


if __name__ == "__main__":
    main()
