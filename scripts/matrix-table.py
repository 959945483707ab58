#!/usr/bin/env python3
"""matrix-table.py DOC TSV...: put the command matrix into DOC between its
<!-- matrix --> and <!-- /matrix --> lines, made from the result lines the
matrix cases wrote (tests/matrix.sh: build/matrix/host.tsv, 6.1.tsv,
6.12.tsv, arm64-6.1.tsv, arm64-6.12.tsv).  A kernel whose results are
missing keeps its column as DOC had it (so one tier run again, the arm64
VMs say, adds or updates its columns alone); a kernel new to DOC gets a
column of its own."""
import re
import sys

doc, files = sys.argv[1], sys.argv[2:]
columns, rows, order = [], {}, []
for path in files:
    try:
        lines = open(path).read().splitlines()
    except FileNotFoundError:
        continue
    col = None
    for line in lines:
        f = line.split("\t")
        if f[0] == "#kernel":
            col = "%s (%s)" % (f[2], f[1]) if f[2] != "host" else "host (%s)" % f[1]
            columns.append(col)
            continue
        if col is None or len(f) < 5:
            continue
        case, cmd, status, attach, detail = f[:5]
        if case not in rows:
            rows[case] = {"cmd": cmd}
            order.append(case)
        if status == "pass":
            cell = "pass: %s" % attach if attach != "-" else "pass"
        elif status == "skip":
            cell = "skip: %s" % detail
        else:
            cell = "**FAIL**: %s" % detail
        rows[case][col] = cell.replace("|", "\\|")


def cells(line):
    # each cell was written between one space on either side
    return [c[1:-1] for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def flavor(col):
    return col.split(" (")[0]


# the table DOC has now: its columns, and per case its command and cells
text = open(doc).read()
begin, end = "<!-- matrix -->", "<!-- /matrix -->"
if begin not in text or end not in text:
    sys.exit("matrix-table: no %s ... %s lines in %s" % (begin, end, doc))
table = text.split(begin, 1)[1].split(end, 1)[0].strip().splitlines()
old_cols = cells(table[0])[2:] if table else []
new = {flavor(c): c for c in columns}
final = [new.pop(flavor(c), c) for c in old_cols] + [c for c in columns if flavor(c) in new]
doc_order = []
for line in table[2:]:
    c = cells(line)
    case = c[1].replace(" ", "_")
    doc_order.append(case)
    if case not in rows:
        rows[case] = {"cmd": c[0].strip("`")}
    for col, cell in zip(old_cols, c[2:]):
        if col in final and col not in columns:
            rows[case].setdefault(col, cell)
columns = final
# the rows in DOC's order, cases new to it after them
order = doc_order + [c for c in order if c not in doc_order]

out = ["| command | case | " + " | ".join(columns) + " |",
       "|---|---|" + "---|" * len(columns)]
for case in order:
    r = rows[case]
    out.append("| `%s` | %s | %s |" % (r["cmd"], case.replace("_", " "),
                                      " | ".join(r.get(c, "not run") for c in columns)))

head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w").write(head + begin + "\n" + "\n".join(out) + "\n" + end + tail)
print("matrix-table: %d cases x %d kernels into %s" % (len(order), len(columns), doc))
