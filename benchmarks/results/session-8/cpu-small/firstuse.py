"""Alternating first-use runs of `gbgraph mis2 laplace3d:50` on several trees, cold numba cache each run.
Kills only the warm-up processes whose command line names this run's cache dir (by pid)."""
import os, sys, time, tempfile, shutil, resource, subprocess, statistics, json, signal
trees = sys.argv[1].split(",")
runs = int(sys.argv[2])
mode = sys.argv[3] if len(sys.argv) > 3 else "default"
spec = sys.argv[4] if len(sys.argv) > 4 else "laplace3d:50"
CODE = f"import sys; sys.argv=['gbgraph','mis2','{spec}']; from gbgraph.cli import main; main()"
def mine(cache):
    pids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmd = open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace")
            except OSError:
                continue
            if cache in cmd and "gbgraph._warmup" in cmd:
                pids.append(int(p))
    return pids
res = {t: [] for t in trees}
for r in range(runs):
    for t in (trees if r % 2 == 0 else trees[::-1]):
        cache = tempfile.mkdtemp(prefix="s39cache-")
        env = dict(os.environ, PYTHONPATH=t, NUMBA_CACHE_DIR=cache)
        env.pop("GBGRAPH_WARMUP", None)
        if mode == "off":
            env["GBGRAPH_WARMUP"] = "0"
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        a = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime
        if out.returncode:
            print(out.stderr[-2000:]); sys.exit(1)
        for pid in mine(cache):
            try: os.killpg(os.getpgid(pid), signal.SIGKILL) if os.getpgid(pid) == pid else os.kill(pid, signal.SIGKILL)
            except ProcessLookupError: pass
        time.sleep(0.5)
        shutil.rmtree(cache, ignore_errors=True)
        res[t].append((wall, cpu))
        print(f"{t:40s} wall {wall:6.2f} cpu {cpu:6.2f} load {os.getloadavg()[0]:.2f}", flush=True)
for t in trees:
    w = [x[0] for x in res[t]]; c = [x[1] for x in res[t]]
    print(f"{t:40s} median wall {statistics.median(w):.2f} min {min(w):.2f}  median cpu {statistics.median(c):.2f} min {min(c):.2f}")
