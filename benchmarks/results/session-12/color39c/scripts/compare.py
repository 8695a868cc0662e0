# python compare.py OLD.json NEW.json...: the keys both have, and those whose hashes differ
import json, sys
old = json.load(open(sys.argv[1]))
new = {}
for p in sys.argv[2:]: new.update(json.load(open(p)))
both = [k for k in new if k in old]
diff = [k for k in both if old[k] != new[k]]
print(f"{len(both)} colorings compared, {len(diff)} differ")
for k in diff: print("  ", k, old[k], "->", new[k])
