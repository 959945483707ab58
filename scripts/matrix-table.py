#!/usr/bin/env python3
"""matrix-table.py DOC TSV...: put the command matrix into DOC between its
<!-- matrix --> and <!-- /matrix --> lines, made from the result lines the
matrix cases wrote (tests/matrix.sh: build/matrix/host.tsv, 6.1.tsv,
6.12.tsv).  A kernel whose results are missing is left out of the table."""
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

out = ["| command | case | " + " | ".join(columns) + " |",
       "|---|---|" + "---|" * len(columns)]
for case in order:
    r = rows[case]
    out.append("| `%s` | %s | %s |" % (r["cmd"], case.replace("_", " "),
                                      " | ".join(r.get(c, "not run") for c in columns)))

text = open(doc).read()
begin, end = "<!-- matrix -->", "<!-- /matrix -->"
if begin not in text or end not in text:
    sys.exit("matrix-table: no %s ... %s lines in %s" % (begin, end, doc))
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w").write(head + begin + "\n" + "\n".join(out) + "\n" + end + tail)
print("matrix-table: %d cases x %d kernels into %s" % (len(order), len(columns), doc))
