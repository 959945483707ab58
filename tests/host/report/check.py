# Checks of kdist's HTML pages for tests/host/report.test.sh:
#   data HTML                 the JSON documents the page embeds, one a line
#   same HTML JSONL           the page embeds exactly the documents of JSONL
#   console LOG               "N drawn, M errors": Chromium's console lines
#   requests NETLOG           URLs the pages asked for (not Chromium's own)
#   heatmap PNG LOG HTML      every heatmap cell coloured iff the data has a count
#   hist PNG LOG HTML         a bar over every bucket with values, none elsewhere
#   explain PNG LOG HTML      each --explain bar split as the data's parts say
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import png  # noqa: E402


def docs_of_page(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="kdist-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def docs_of_file(path):
    text, docs, at = open(path, encoding="utf-8").read(), [], 0
    dec = json.JSONDecoder()
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return docs
        d, at = dec.raw_decode(text, at)
        docs.append(d)


def charts(log):
    out = []
    for line in open(log, errors="replace"):
        m = re.search(r'"kdist: chart (\{.*\})", source', line)
        if m:
            out.append(json.loads(m.group(1)))
    return out


def row(b):
    mid = (b[0] + b[1]) / 2
    return math.floor(math.log2(mid)) if mid >= 2 else 0


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


PLOT, HEAT_EMPTY, BAR = hexrgb("#f7f9fc"), hexrgb("#f0f0f6"), hexrgb("#4678c8")


def near(a, b, tol=6):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def heat_coloured(p):
    # the scale runs from pale yellow to dark red: red high, blue low
    return p[0] >= 120 and p[2] <= 210 and not near(p, HEAT_EMPTY)


def check_heatmap(shot, log, page):
    docs = sorted(docs_of_page(page), key=lambda d: d.get("interval", 0))
    geo = [c for c in charts(log) if c["kind"] == "heatmap"][0]
    w, h, px = png.load(shot)
    lo, hi = geo["rows"]
    bad, full, bands = [], 0, set()
    for i, d in enumerate(docs):
        cells = {}
        for g in d["groups"]:
            for b in g["buckets"]:
                cells[row(b)] = cells.get(row(b), 0) + b[2]
        for r in range(lo, hi + 1):
            x = geo["left"] + geo["ml"] + int((i + 0.5) * geo["cw"])
            y = geo["top"] + geo["mt"] + int((hi - r + 0.5) * geo["rowH"])
            got = heat_coloured(px[y][x])
            if got != (r in cells):
                bad.append(f"interval {i + 1} row 2^{r}: pixel {px[y][x]}, count {cells.get(r, 0)}")
            if got:
                full += 1
                bands.add(r)
    print(f"{len(docs)} intervals x {hi - lo + 1} rows: {full} coloured cells, rows {sorted(bands)}")
    for b in bad[:5]:
        print("wrong cell:", b)
    return not bad and full > 0


def check_hist(shot, log, page):
    docs = docs_of_page(page)
    geo = [c for c in charts(log) if c["kind"] == "hist"][0]
    w, h, px = png.load(shot)
    d0, d1 = geo["log2"]
    base = geo["top"] + geo["mt"] + geo["ph"] - 1
    marks = geo["marks"]    # where the page drew the percentiles

    def x(v):
        return geo["left"] + geo["ml"] + (math.log2(max(v, 0.5)) - d0) / (d1 - d0) * geo["pw"]

    filled = {}
    for d in docs:
        for gg in d["groups"]:
            for b in gg["buckets"]:
                filled[(b[0], b[1])] = filled.get((b[0], b[1]), 0) + b[2]
    spans = [(x(lo), x(hi + 1)) for lo, hi in filled]
    mx = [x(v) for v in marks]
    bad, bars = [], 0
    for col in range(int(x(2 ** d0)) + 2, int(x(2 ** d1)) - 2):
        if any(abs(col - m) < 3 for m in mx):
            continue    # a percentile's dashed line
        inside = any(a + 1 <= col <= b - 1 for a, b in spans)
        edge = any(a - 2 <= col <= b + 2 for a, b in spans)
        p = px[base][col]
        if inside and not near(p, BAR):
            bad.append(f"x {col}: {p}, expected a bar")
        if not edge and not near(p, PLOT) and near(p, BAR):
            bad.append(f"x {col}: a bar where no bucket is")
        bars += near(p, BAR)
    print(f"{len(filled)} buckets with values, {bars} bar columns at the baseline")
    for b in bad[:5]:
        print("wrong column:", b)
    return not bad and bars > 0


PARTS = ["oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed"]


def check_explain(shot, log, page):
    """Each row's bar, sampled in the middle of every part wider than 4 px
    at the place the data (not the page's geometry) puts it, has that
    part's colour.  From the page: only where the chart and its rows lie."""
    docs = docs_of_page(page)
    geo = [c for c in charts(log) if c["kind"] == "explain"][0]
    w, h, px = png.load(shot)
    rows = {}
    for d in docs:
        for g in d["groups"]:
            for r in g.get("explain", {}).get("rows", []):
                x = rows.setdefault(r["low"], {"sum": 0, **{p: 0 for p in PARTS}})
                x["sum"] += r["sum"]
                for p in PARTS:
                    x[p] += r["parts"][p] or 0
    bad, checked = [], 0
    if sorted(rows) != [r["low"] for r in geo["rows"]]:
        return print(f"rows drawn {[r['low'] for r in geo['rows']]}, data {sorted(rows)}") or False
    for r in geo["rows"]:
        x0, data = geo["left"] + geo["ml"], rows[r["low"]]
        y = geo["top"] + r["y"] + geo["rh"] // 2
        at = 0.0
        for p in PARTS:
            width = data[p] / data["sum"] * geo["pw"] if data["sum"] else 0
            if width > 4:
                col = int(x0 + at + width / 2)
                if not near(px[y][col], hexrgb(geo["colours"][p]), 8):
                    bad.append(f"row {r['low']} {p} at x {col}: {px[y][col]}")
                checked += 1
            at += width
    print(f"{len(rows)} rows, {checked} parts wider than 4 px in their colours")
    for b in bad[:5]:
        print("wrong part:", b)
    return not bad and checked > 0


def main(a):
    if a[0] == "data":
        for d in docs_of_page(a[1]):
            print(json.dumps(d))
        return True
    if a[0] == "same":
        p, f = docs_of_page(a[1]), docs_of_file(a[2])
        print(f"page {len(p)} documents, file {len(f)}")
        return p == f
    if a[0] == "console":
        drawn = errors = 0
        for line in open(a[1], errors="replace"):
            if "CONSOLE" in line and "kdist: page drawn" in line:
                drawn += 1
            elif re.search(r"(ERROR|WARNING):CONSOLE|Uncaught|Refused to", line):
                errors += 1
                print(line.strip(), file=sys.stderr)
        print(f"{drawn} drawn, {errors} errors")
        return True
    if a[0] == "requests":
        log = json.load(open(a[1]))
        kinds = {v: k for k, v in log["constants"]["logEventTypes"].items()}
        urls = sorted({e["params"].get("url", "") for e in log["events"]
                       if kinds.get(e["type"]) == "URL_REQUEST_START_JOB"
                       and e["params"].get("initiator") != "not an origin"} - {""})
        print(" ".join(urls))
        return True
    if a[0] == "heatmap":
        return check_heatmap(*a[1:])
    if a[0] == "hist":
        return check_hist(*a[1:])
    if a[0] == "explain":
        return check_explain(*a[1:])
    return False


sys.exit(0 if main(sys.argv[1:]) else 1)
