# dev-only: run a benchmark script with the cupy backend's compiled rounds restricted
import os, runpy, sys
from gbgraph.backends.cupy import CupyBackend, program, replay
mode = os.environ["VARIANT"]
original = CupyBackend.iterate
def iterate(self, step, state, *, first=0, stop=None, check=None):
    if mode == "nocheck" and check is not None or mode == "nocolor" and "coloring" in step.__code__.co_filename:
        return replay.iterate(step, state, first, stop, check)
    return original(self, step, state, first=first, stop=stop, check=check)
CupyBackend.iterate = iterate
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")
