import json, sys
for l in open(sys.argv[1]):
    if l.startswith('{'):
        r = json.loads(l)
        cs = [c for c in r if isinstance(r[c], dict)]
        print(f"{r['graph'][:14]:14s} {r['k']} KM {r.get('kaminpar_s', 0):.3f} {r['kaminpar']:7d} M {r['metis']:7d} |",
              " ".join(f"{c} {r[c]['cut']:7d} {r[c]['cpu_s']:.3f}" for c in cs))
    else:
        print(l.strip())
