#!/usr/bin/python3
"""Independent reference figures for `perfhound trace` tests.

Usage: /usr/bin/python3 independent_util.py [trace.json.gz ...]
(run from this folder: python3 reference_figures.py *.json.gz)

Conventions (all arithmetic in integer nanoseconds, exact):
 * ts/dur are parsed with Decimal (no float rounding) and converted to ns = us*1000
   (every ts/dur in these files has <= 3 decimals, so this is exact).
 * window  = [min ts, max(ts+dur)] over every event with a numeric ts EXCEPT ph=="M"
   metadata (dur missing -> 0). Includes the 'Trace' span, instants, flows.
 * window_x = same but only complete events (ph=="X"), also excluding cat=="Trace"
   (the profiler's own span) -- shown as a variant.
 * GPU intervals = ph=="X" and cat in {kernel, gpu_memcpy, gpu_memset}
   (gpu_user_annotation excluded); union merges overlaps (touching counts once).
 * busy = |union|; idle = window - busy; span = [first GPU start, last GPU end].
"""
import gzip, json, sys, glob, os, collections
from decimal import Decimal

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

def ns(x):
    v = Decimal(x) * 1000
    assert v == v.to_integral_value(), x   # sub-ns would be a surprise
    return int(v)

def union_len(iv):
    iv = sorted(iv); tot = 0; cs = ce = None; n = 0
    for s, e in iv:
        if cs is None or s > ce:
            if cs is not None: tot += ce - cs; n += 1
            cs, ce = s, e
        elif e > ce: ce = e
    if cs is not None: tot += ce - cs; n += 1
    return tot, n

def fmt(v): return "%d ns (%.3f us)" % (v, v / 1000)

def analyze(path):
    d = json.load(gzip.open(path), parse_float=Decimal)
    ev = d["traceEvents"]
    lo = hi = None; lox = hix = None
    gpu = []; per_cat = collections.Counter(); per_cat_t = collections.Counter()
    ktime = collections.Counter(); kcount = collections.Counter()
    for e in ev:
        if e.get("ph") == "M" or not isinstance(e.get("ts"), (int, Decimal)): continue
        s = ns(e["ts"]); t = s + ns(e.get("dur", 0) or 0)
        lo = s if lo is None else min(lo, s); hi = t if hi is None else max(hi, t)
        if e.get("ph") == "X" and e.get("cat") != "Trace":
            lox = s if lox is None else min(lox, s); hix = t if hix is None else max(hix, t)
        c = e.get("cat")
        if e.get("ph") == "X" and c in GPU_CATS:
            gpu.append((s, t)); per_cat[c] += 1; per_cat_t[c] += t - s
            if c == "kernel": ktime[e["name"]] += t - s; kcount[e["name"]] += 1
    busy, nblk = union_len(gpu)
    win = hi - lo; winx = hix - lox
    gs = min(s for s, _ in gpu); ge = max(t for _, t in gpu); span = ge - gs
    print("=" * 78); print(os.path.basename(path))
    print("  window (all non-M events) : [%d, %d] ns -> %s" % (lo, hi, fmt(win)))
    print("  window_x (X events, no Trace span): %s" % fmt(winx))
    for c in GPU_CATS:
        print("  %-11s count=%-6d sum(dur)=%s" % (c, per_cat[c], fmt(per_cat_t[c])))
    print("  GPU union busy            : %s  (%d merged blocks)" % (fmt(busy), nblk))
    print("  idle over window          : %s  util=%.4f%%" % (fmt(win - busy), 100.0 * busy / win))
    print("  idle over window_x        : %s  util=%.4f%%" % (fmt(winx - busy), 100.0 * busy / winx))
    print("  GPU span first->last      : [%d, %d] -> %s" % (gs, ge, fmt(span)))
    print("  idle over GPU span        : %s  util=%.4f%%" % (fmt(span - busy), 100.0 * busy / span))
    print("  kernels                   : %d (distinct names %d)" % (per_cat["kernel"], len(ktime)))
    print("  top 5 kernels by total time:")
    for name, t in sorted(ktime.items(), key=lambda kv: (-kv[1], kv[0]))[:5]:
        print("    %s  n=%d  %s" % (fmt(t), kcount[name], name[:150]))

if __name__ == "__main__":
    files = sys.argv[1:] or sorted(glob.glob("*.json.gz"))
    for f in files: analyze(f)
