/* kdist's HTML view: draws the page from the JSON documents it embeds
 * (docs/json.md, docs/diff.md).  html.c embeds this script; it loads
 * nothing. */
(function () {
	"use strict";

	var docs = JSON.parse(document.getElementById("kdist-data").textContent);
	var root = document.getElementById("kd");
	var flame = document.getElementById("kdist-flame");
	var SVGNS = "http://www.w3.org/2000/svg";
	/* Colours the tests look for in screenshots: keep each one unique. */
	var C = {
		bar: "#4678c8", plot: "#f7f9fc", heat: "#f0f0f6", grid: "#e2e6ee",
		p50: "#1b9e77", p90: "#7570b3", p99: "#d95f02", p999: "#e7298a"
	};
	/* --explain's parts, in the order kdist prints them */
	var PARTS = [["oncpu", "on CPU", "#4678c8"], ["irq", "irq", "#e7298a"],
		["runnable", "runnable", "#d95f02"], ["blocked_s", "blocked S", "#1b9e77"],
		["blocked_d", "blocked D", "#7570b3"], ["blocked_other", "blocked, other", "#a6761d"],
		["unattributed", "unattributed", "#999999"]];
	var HEAT = [[255, 255, 204], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]];
	var QS = [["p50", 0.5, "p50"], ["p90", 0.9, "p90"], ["p99", 0.99, "p99"],
		["p999", 0.999, "p99.9"]];
	var CARDS = 6;		/* at most this many groups as charts, else a table */
	var tip;

	/* Where a chart's plot lies on the page, on the browser's log: the
	 * tests find bars and cells in screenshots with it. */
	var charts = [];
	function logChart(kind, node, geo) {
		charts.push(function () {
			var b = node.getBoundingClientRect();

			geo.kind = kind;
			geo.left = Math.round(b.left + window.scrollX);
			geo.top = Math.round(b.top + window.scrollY);
			console.info("kdist: chart " + JSON.stringify(geo));
		});
	}

	/* ---- DOM helpers ---- */
	function el(tag, parent, text, cls) {
		var e = document.createElement(tag);

		if (text !== undefined && text !== null)
			e.textContent = text;
		if (cls)
			e.className = cls;
		if (parent)
			parent.appendChild(e);
		return e;
	}
	function sv(tag, attrs, parent) {
		var e = document.createElementNS(SVGNS, tag);

		for (var k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}
	function showTip(ev, text) {
		if (!tip)
			tip = el("div", document.body, null, "tip");
		tip.id = "tip";
		tip.textContent = text;
		tip.style.display = "block";
		tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - tip.offsetWidth - 4) + "px";
		tip.style.top = (ev.clientY + 14) + "px";
	}
	function hideTip() {
		if (tip)
			tip.style.display = "none";
	}

	/* ---- numbers ---- */
	function sig4(x) {
		return String(Number(x.toPrecision(4)));
	}
	function fmtTime(ns) {
		var u = [["s", 1e9], ["ms", 1e6], ["us", 1e3], ["ns", 1]];

		for (var i = 0; i < u.length - 1; i++)
			if (Math.abs(ns) >= u[i][1])
				return sig4(ns / u[i][1]) + u[i][0];
		return sig4(ns) + "ns";
	}
	function fmtBytes(v) {
		var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;

		while (i + 1 < u.length && v >= 1024) {
			v /= 1024;
			i++;
		}
		return (i && v < 9.95 ? v.toFixed(1) : v.toFixed(0)) + " " + u[i];
	}
	function fmtVal(v, unit) {
		if (v === null || v === undefined || isNaN(v))
			return "-";
		if (unit === "ns")
			return fmtTime(v);
		if (unit === "bytes")
			return fmtBytes(v);
		return sig4(v) + (unit ? " " + unit : "");
	}
	function fmtCount(n) {
		return n >= 1e6 ? sig4(n / 1e6) + "M" : n >= 1e4 ? sig4(n / 1e3) + "k" : String(n);
	}
	function quantile(b, count, min, max, q) {
		var rank, seen = 0, i, lo, hi;

		if (!count)
			return 0;
		if (q <= 0)
			return min;
		if (q >= 1)
			return max;
		rank = Math.max(1, Math.ceil(q * count));
		for (i = 0; i < b.length; i++) {
			seen += b[i][2];
			if (seen < rank)
				continue;
			lo = Math.max(b[i][0], min);
			hi = Math.min(b[i][1], max);
			if (hi < lo)
				hi = lo;
			return lo + (hi - lo) * ((rank - (seen - b[i][2])) - 0.5) / b[i][2];
		}
		return max;
	}
	/* The log2 row of a bucket, as the text view folds buckets: the
	 * power of two its midpoint is in. */
	function row(b) {
		var mid = (b[0] + b[1]) / 2;

		return mid >= 2 ? Math.floor(Math.log2(mid)) : 0;
	}

	/* ---- the measurement: groups of every document, merged ---- */
	function labelOf(d, g) {
		var s = [];

		for (var i = 0; i < d.by.length; i++)
			s.push(g.by[d.by[i]]);
		return s.join(", ");
	}
	function merge(list) {
		var d0 = list[0], groups = {}, order = [], iv = list.length > 1 || d0.interval > 0;

		list.forEach(function (d, k) {
			d.groups.forEach(function (g) {
				var id = JSON.stringify(g.by), m = groups[id];

				if (!m) {
					m = groups[id] = { label: labelOf(d0, g), by: g.by, n: 0, sum: 0,
						min: Infinity, max: 0, self: 0, total: 0, sq: 0, b: {},
						per: new Array(list.length) };
					order.push(m);
				}
				m.per[k] = g;
				m.n += g.count;
				m.sum += g.sum;
				m.self += g.self || 0;
				m.total += g.total || 0;
				m.sq += g.count * ((g.stddev || 0) * (g.stddev || 0) + g.mean * g.mean);
				if (g.count) {
					m.min = Math.min(m.min, g.min);
					m.max = Math.max(m.max, g.max);
				}
				g.buckets.forEach(function (b) {
					var x = m.b[b[0]];

					if (x)
						x[2] += b[2];
					else
						m.b[b[0]] = [b[0], b[1], b[2]];
				});
			});
		});
		order.forEach(function (m) {
			var one = m.per.filter(function (g) { return g; });

			m.buckets = Object.keys(m.b).map(function (k) { return m.b[k]; })
				.sort(function (x, y) { return x[0] - y[0]; });
			if (!iv && one.length === 1) {
				/* a whole run: the statistics kdist computed */
				var g = one[0];
				m.count = g.count; m.mean = g.mean; m.stddev = g.stddev;
				QS.forEach(function (q) { m[q[0]] = g[q[0]]; });
			} else {
				m.count = m.n;
				m.mean = m.n ? m.sum / m.n : 0;
				m.stddev = m.n ? Math.sqrt(Math.max(0, m.sq / m.n - m.mean * m.mean)) : 0;
				QS.forEach(function (q) {
					m[q[0]] = quantile(m.buckets, m.n, m.min, m.max, q[1]);
				});
			}
			if (m.min === Infinity)
				m.min = 0;
		});
		return order;
	}

	/* ---- header ---- */
	function metaRow(t, th, td, code) {
		var tr = el("tr", t);

		el("th", tr, th);
		if (code)
			el("code", el("td", tr), td);
		else
			el("td", tr, td);
	}
	function header(list) {
		var d = list[0], t, dur = 0, runs = 0, runNs = 0, cost = null, drops = {}, lost = 0;
		var quiet = {};	/* events without a partner by nature: not a loss */
		var iv = list.filter(function (x) { return x.interval > 0; }).length, box;

		list.forEach(function (x) {
			dur += x.duration_s;
			lost += x.lost;
			for (var k in x.drops)
				drops[k] = (drops[k] || 0) + x.drops[k];
			for (var u in x.unmatched || {})
				quiet[u] = true;
			if (x.cost) {
				cost = cost || x.cost;
				runs += x.cost.runs || 0;
				runNs += x.cost.run_ns || 0;
			}
		});
		el("h1", root, d.title);
		t = el("table", root, null, "meta");
		metaRow(t, "command line", d.cmdline || "kdist " + d.command + " ...", true);
		(d.events || []).forEach(function (e, i) {
			metaRow(t, i ? "" : "events", e.role + ": " + e.spec + (e.attach ? "  (" + e.attach + ")" : ""), true);
		});
		if (d.key)
			metaRow(t, "key", d.key);
		metaRow(t, "grouped by", d.by.length ? d.by.join(", ") : "(one group)");
		metaRow(t, "kernel", d.kernel);
		if (d.start_unix)
			metaRow(t, "started", new Date(d.start_unix * 1000).toISOString().replace("T", " ")
				.replace(/\.\d+Z$/, " UTC"));
		metaRow(t, "duration", dur.toFixed(dur < 10 ? 3 : 1) + " s" +
			(iv ? ", " + iv + " intervals of " + (dur / iv).toFixed(2) + " s" : ""));
		metaRow(t, "groups", String(Math.max.apply(null, list.map(function (x) {
			return x.groups_total; }))));
		if (d.functions)
			metaRow(t, "functions", d.functions.attached + " attached, " + d.functions.skipped +
				" skipped, in " + d.functions.attach_ms + " ms");
		if (cost && cost.unknown)
			metaRow(t, "kdist's cost", "unknown: " + cost.unknown);
		else if (cost)
			metaRow(t, "kdist's cost", fmtCount(runs) + " program runs" +
				(runs ? ", " + (runNs / runs).toFixed(0) + " ns each" : "") +
				(dur ? ", " + (100 * runNs / (dur * 1e9)).toPrecision(2) + "% of one CPU" : ""));
		box = el("div", root, null, "drops");
		el("span", box, "lost " + lost, "drop" + (lost ? " bad" : ""));
		Object.keys(drops).forEach(function (k) {
			el("span", box, k + " " + drops[k], "drop" + (quiet[k] ? " quiet" :
				drops[k] ? " bad" : ""));
		});
	}

	/* ---- the histogram: log latency across, count up ---- */
	function xDomain(buckets) {
		var lo = Math.floor(Math.log2(Math.max(buckets[0][0], 0.5)));
		var hi = Math.ceil(Math.log2(buckets[buckets.length - 1][1] + 1));

		if (hi - lo < 3) {
			lo -= 1;
			hi += 1;
		}
		return [lo, hi];
	}
	/* Ticks at 1, 10, 100... of the unit, with 2 and 5 when few. */
	function ticks(lo, hi) {
		var t = [], a = Math.pow(2, lo), b = Math.pow(2, hi), p, m;

		for (p = Math.pow(10, Math.floor(Math.log10(Math.max(a, 1)))); p <= b; p *= 10) {
			[1, 2, 5].forEach(function (k) {
				if (p * k >= a && p * k <= b)
					t.push(p * k);
			});
		}
		m = t.filter(function (v) { return String(v)[0] === "1"; });
		return m.length >= 3 ? m : t;
	}
	function histChart(parent, m, unit, width) {
		var W = Math.max(280, Math.floor(width)), H = 220, ml = 52, mr = 14, mt = 34, mb = 30;
		var pw = W - ml - mr, ph = H - mt - mb, b = m.buckets, dom, peak = 0, s, i;

		s = sv("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "chart hist",
			"font-size": 11 }, parent);
		if (!b.length) {
			sv("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, s).textContent = "no values";
			return s;
		}
		dom = xDomain(b);
		function x(v) {
			return ml + (Math.log2(Math.max(v, 0.5)) - dom[0]) / (dom[1] - dom[0]) * pw;
		}
		b.forEach(function (k) { peak = Math.max(peak, k[2]); });
		sv("rect", { x: ml, y: mt, width: pw, height: ph, fill: C.plot }, s);
		ticks(dom[0], dom[1]).forEach(function (v) {
			var xv = Math.round(x(v)) + 0.5;

			sv("line", { x1: xv, x2: xv, y1: mt, y2: mt + ph, stroke: C.grid }, s);
			sv("text", { x: xv, y: H - mb + 14, "text-anchor": "middle", fill: "#5b6478" }, s)
				.textContent = fmtVal(v, unit);
		});
		[0, 0.5, 1].forEach(function (f) {
			var y = mt + ph - Math.round(f * ph);

			sv("text", { x: ml - 6, y: y + 4, "text-anchor": "end", fill: "#5b6478" }, s)
				.textContent = fmtCount(Math.round(f * peak));
		});
		for (i = 0; i < b.length; i++) {
			var x0 = Math.round(x(b[i][0])), x1 = Math.round(x(b[i][1] + 1));
			var h = Math.max(1, Math.round(b[i][2] / peak * ph));
			var r = sv("rect", { x: x0, y: mt + ph - h, width: Math.max(1, x1 - x0), height: h,
				fill: C.bar, "shape-rendering": "crispEdges" }, s);

			sv("title", {}, r).textContent = fmtVal(b[i][0], unit) + " to " +
				fmtVal(b[i][1], unit) + ": " + b[i][2];
		}
		QS.forEach(function (q, k) {
			var xv = Math.round(x(m[q[0]])) + 0.5;

			sv("line", { x1: xv, x2: xv, y1: mt - 3, y2: mt + ph, stroke: C[q[0]],
				"stroke-width": 1.5, "stroke-dasharray": "4 3" }, s);
			/* two lines of labels: neighbours often sit close */
			sv("text", { x: xv, y: mt - 6 - (k % 2) * 12,
				"text-anchor": xv > W - 40 ? "end" : xv < ml + 30 ? "start" : "middle",
				fill: C[q[0]], "font-weight": 600 }, s).textContent = q[2];
		});
		sv("text", { x: ml, y: H - 2, fill: "#5b6478" }, s).textContent =
			"log scale; dashed: percentiles";
		logChart("hist", s, { label: m.label, ml: ml, pw: pw, mt: mt, ph: ph, log2: dom,
			marks: QS.map(function (q) { return m[q[0]]; }) });
		return s;
	}
	function statsLine(parent, m, unit) {
		var p = el("div", parent, null, "stats"), parts = [["count", String(m.count)],
			["mean", fmtVal(m.mean, unit)], ["stddev", fmtVal(m.stddev, unit)],
			["min", fmtVal(m.min, unit)]];

		QS.forEach(function (q) { parts.push([q[2], fmtVal(m[q[0]], unit)]); });
		parts.push(["max", fmtVal(m.max, unit)]);
		parts.forEach(function (x) {
			p.appendChild(document.createTextNode(x[0] + " "));
			el("b", p, x[1]);
			p.appendChild(document.createTextNode("  "));
		});
	}

	/* ---- the heatmap: intervals across, log2 rows up, colour for count ---- */
	function heatColour(t) {
		var x = t * (HEAT.length - 1), i = Math.min(HEAT.length - 2, Math.floor(x)), f = x - i;
		var a = HEAT[i], b = HEAT[i + 1];

		return "rgb(" + [0, 1, 2].map(function (k) {
			return Math.round(a[k] + (b[k] - a[k]) * f);
		}).join(",") + ")";
	}
	function rowsOf(m) {
		var lo = Infinity, hi = -Infinity;

		m.per.forEach(function (g) {
			(g ? g.buckets : []).forEach(function (b) {
				lo = Math.min(lo, row(b));
				hi = Math.max(hi, row(b));
			});
		});
		/* one empty row below and above */
		return [lo - 1, hi + 1];
	}
	function rowLabel(r, unit) {
		return fmtVal(r ? Math.pow(2, r) : 0, unit);
	}
	function heatmap(parent, m, list, unit, width) {
		var rr = rowsOf(m), nrows = rr[1] - rr[0] + 1, n = list.length, ml = 64, mr = 14;
		var mt = 8, mb = 26, rowH = Math.max(6, Math.min(16, Math.floor(260 / nrows)));
		var cw = Math.max(1, Math.floor((Math.floor(width) - ml - mr) / n)), pw = cw * n;
		var W = ml + pw + mr, H = mt + nrows * rowH + mb, cv = el("canvas", parent, null, "chart heat");
		var cx = cv.getContext("2d"), dpr = window.devicePixelRatio || 1, peak = 0, cells = [];
		var step = Math.max(1, Math.ceil(14 / rowH)), xs = Math.max(1, Math.ceil(40 / cw)), i, r;

		cv.width = W * dpr;
		cv.height = H * dpr;
		cv.style.width = W + "px";
		cv.style.height = H + "px";
		cx.scale(dpr, dpr);
		for (i = 0; i < n; i++) {
			cells[i] = {};
			(m.per[i] ? m.per[i].buckets : []).forEach(function (b) {
				var k = row(b);

				cells[i][k] = (cells[i][k] || 0) + b[2];
				peak = Math.max(peak, cells[i][k]);
			});
		}
		cx.fillStyle = C.heat;
		cx.fillRect(ml, mt, pw, nrows * rowH);
		for (i = 0; i < n; i++) {
			for (r in cells[i]) {
				var c = cells[i][r], t = peak > 1 ? Math.log(c) / Math.log(peak) : 1;

				cx.fillStyle = heatColour(0.12 + 0.88 * t);
				cx.fillRect(ml + i * cw, mt + (rr[1] - r) * rowH, cw, rowH);
			}
		}
		cx.fillStyle = "#5b6478";
		cx.font = "11px system-ui, sans-serif";
		cx.textAlign = "right";
		for (r = rr[0] + 1; r <= rr[1]; r += step)
			cx.fillText(rowLabel(r, unit), ml - 6, mt + (rr[1] - r + 1) * rowH + 4);
		cx.textAlign = "center";
		for (i = 0; i < n; i += xs)
			cx.fillText(String(list[i].interval || i + 1), ml + (i + 0.5) * cw, H - mb + 14);
		cx.textAlign = "left";
		cx.fillText("interval", ml + pw - 44, H - 2);
		cv.addEventListener("mousemove", function (ev) {
			var b = cv.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
			var ci = Math.floor((x - ml) / cw), cr = rr[1] - Math.floor((y - mt) / rowH), v;

			if (ci < 0 || ci >= n || cr < rr[0] || cr > rr[1] || y < mt) {
				hideTip();
				return;
			}
			v = cells[ci][cr] || 0;
			showTip(ev, "interval " + (list[ci].interval || ci + 1) + ": " +
				rowLabel(cr, unit) + " to " + fmtVal(Math.pow(2, cr + 1), unit) + ": " + v);
		});
		cv.addEventListener("mouseleave", hideTip);
		logChart("heatmap", cv, { label: m.label, ml: ml, mt: mt, cw: cw, rowH: rowH, rows: rr });
		return { ml: ml, cw: cw, rowH: rowH, rows: rr, W: W };
	}
	/* The percentiles of each interval, on the heatmap's columns and rows. */
	function pctLines(parent, m, list, unit, geo) {
		var nrows = geo.rows[1] - geo.rows[0] + 1, mt = 8, H = mt + nrows * geo.rowH + 8;
		var s = sv("svg", { width: geo.W, height: H, "class": "chart pct", "font-size": 11 }, parent);
		var lg = el("div", parent, null, "legend");

		function y(v) {
			return mt + (geo.rows[1] + 1 - Math.log2(Math.max(v, 1))) * geo.rowH;
		}
		sv("rect", { x: geo.ml, y: mt, width: geo.cw * list.length, height: nrows * geo.rowH,
			fill: "none", stroke: C.grid }, s);
		for (var r = geo.rows[0] + 1; r <= geo.rows[1]; r += Math.max(1, Math.ceil(14 / geo.rowH)))
			sv("text", { x: geo.ml - 6, y: y(Math.pow(2, r)) + 4, "text-anchor": "end",
				fill: "#5b6478" }, s).textContent = rowLabel(r, unit);
		QS.forEach(function (q) {
			var pts = [];

			list.forEach(function (d, i) {
				var g = m.per[i];

				if (g && g.count)
					pts.push((geo.ml + (i + 0.5) * geo.cw).toFixed(1) + "," + y(g[q[0]]).toFixed(1));
			});
			sv("polyline", { points: pts.join(" "), fill: "none", stroke: C[q[0]],
				"stroke-width": 1.5 }, s);
			var sp = el("span", lg);
			el("i", sp).style.background = C[q[0]];
			sp.appendChild(document.createTextNode(q[2]));
		});
		return s;
	}

	/* ---- one group in full ---- */
	/* --explain: a bar per power-of-two latency bucket, split by share of
	 * the bucket's time into the parts, summed over the documents */
	function explainRows(m) {
		var rows = {};

		m.per.forEach(function (g) {
			((g && g.explain && g.explain.rows) || []).forEach(function (r) {
				var x = rows[r.low];

				if (!x)
					x = rows[r.low] = { low: r.low, high: r.high, count: 0, sum: 0, parts: {} };
				x.count += r.count;
				x.sum += r.sum;
				PARTS.forEach(function (p) {
					var v = r.parts[p[0]];

					x.parts[p[0]] = v === null ? null : (x.parts[p[0]] || 0) + v;
				});
			});
		});
		return Object.keys(rows).map(function (k) { return rows[k]; })
			.sort(function (a, b) { return a.low - b.low; });
	}
	function explainBars(parent, m, width) {
		var rows = explainRows(m), W = Math.max(280, Math.floor(width)), rh = 18, gap = 4;
		var ml = 170, mr = 14, mt = 26, pw = W - ml - mr, H = mt + rows.length * (rh + gap) + 4;
		var s, lx = ml, geo = [];

		if (!rows.length)
			return null;
		s = sv("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H,
			"class": "chart explain", "font-size": 11 }, parent);
		PARTS.forEach(function (p) {
			var na = rows[0].parts[p[0]] === null;

			sv("rect", { x: lx, y: 6, width: 10, height: 10, fill: na ? "#ffffff" : p[2],
				stroke: p[2] }, s);
			var t = sv("text", { x: lx + 14, y: 15, fill: "#5b6478" }, s);
			t.textContent = p[1] + (na ? " (n/a)" : "");
			lx += 14 + t.getComputedTextLength() + 12;
		});
		rows.forEach(function (r, i) {
			var y = mt + i * (rh + gap), x = ml, segs = [];

			sv("text", { x: ml - 6, y: y + rh - 5, "text-anchor": "end", fill: "#5b6478" }, s)
				.textContent = fmtTime(r.low) + " \u2013 " + fmtTime(r.high) + ": " + r.count;
			PARTS.forEach(function (p) {
				var v = r.parts[p[0]], w;

				if (!v || !r.sum)
					return;
				w = v / r.sum * pw;
				var e = sv("rect", { x: x.toFixed(2), y: y, width: w.toFixed(2), height: rh,
					fill: p[2], "shape-rendering": "crispEdges" }, s);
				sv("title", {}, e).textContent = p[1] + ": " + (100 * v / r.sum).toFixed(1) +
					"%, " + fmtTime(v / r.count) + " per interval";
				segs.push([p[0], x - ml, x - ml + w]);
				x += w;
			});
			geo.push({ low: r.low, y: y, segs: segs });
		});
		logChart("explain", s, { label: m.label, ml: ml, pw: pw, rh: rh, rows: geo,
			colours: PARTS.reduce(function (o, p) { o[p[0]] = p[2]; return o; }, {}) });
		return s;
	}

	function card(parent, m, list, unit, width, title) {
		var box = el("div", parent, null, "card");

		if (title)
			el("h2", box, m.label || "all");
		statsLine(box, m, unit);
		histChart(box, m, unit, width);
		if (m.per.some(function (g) { return g && g.explain; })) {
			el("h3", box, "where the time went (--explain): a bar per power of two of the latency");
			explainBars(box, m, width);
		}
		if (list.length > 1 || list[0].interval > 0) {
			el("h3", box, "over time: a column per interval, a row per power of two");
			var geo = heatmap(box, m, list, unit, width);
			el("h3", box, "percentiles per interval");
			pctLines(box, m, list, unit, geo);
		}
		return box;
	}

	/* ---- many groups: a table, each row opens its group ---- */
	function sparkline(parent, m, rr) {
		var w = 120, h = 22, n = rr[1] - rr[0] + 1, cols = {}, peak = 0;
		var s = sv("svg", { width: w, height: h, "class": "spark" }, parent);

		m.buckets.forEach(function (b) {
			cols[row(b)] = (cols[row(b)] || 0) + b[2];
		});
		for (var r in cols)
			peak = Math.max(peak, cols[r]);
		for (r in cols) {
			var bh = Math.max(1, Math.round(cols[r] / peak * (h - 2)));

			sv("rect", { x: ((r - rr[0]) * w / n).toFixed(1), y: h - bh,
				width: Math.max(1, w / n - 0.5).toFixed(1), height: bh, fill: C.bar }, s);
		}
	}
	function table(parent, groups, cols, list, unit, width, sortCol) {
		var f = el("input", parent, null, "filter"), wrap = el("div", parent, null, "scroll");
		var t = el("table", wrap, null, "groups"), hr = el("tr", el("thead", t)), tb = el("tbody", t);
		var sortBy = sortCol, up = false, rows = [], lo = Infinity, hi = -Infinity;

		f.type = "search";
		f.placeholder = "filter: text or /regular expression/";
		/* a link can carry the filter: page.html#filter=TEXT */
		f.value = decodeURIComponent((location.hash.match(/[#&]filter=([^&]*)/) || ["", ""])[1]);
		groups.forEach(function (m) {
			m.buckets.forEach(function (b) {
				lo = Math.min(lo, row(b));
				hi = Math.max(hi, row(b));
			});
		});
		cols.forEach(function (c, i) {
			var th = el("th", hr, c[0]);

			th.addEventListener("click", function () {
				up = sortBy === i ? !up : false;
				sortBy = i;
				draw();
			});
			c.th = th;
		});
		el("th", hr, "distribution").style.cursor = "default";
		groups.forEach(function (m) {
			var tr = el("tr", null, null, "row"), detail = null;

			cols.forEach(function (c, i) {
				el("td", tr, c[2](m), i ? null : "label").title = i ? "" : m.label;
			});
			sparkline(el("td", tr), m, [lo, hi]);
			tr.addEventListener("click", function () {
				if (detail) {
					detail.remove();
					detail = null;
					tr.classList.remove("open");
					return;
				}
				detail = el("tr");
				var td = el("td", detail, null, "detail");
				td.colSpan = cols.length + 1;
				card(td, m, list, unit, Math.min(width, wrap.clientWidth - 24), false);
				tr.after(detail);
				tr.classList.add("open");
			});
			rows.push({ m: m, tr: tr });
		});
		function draw() {
			var q = f.value.trim(), re = null, shown = 0;

			if (q.length > 2 && q[0] === "/" && q[q.length - 1] === "/") {
				try { re = new RegExp(q.slice(1, -1), "i"); } catch (e) { re = null; }
			}
			rows.sort(function (a, b) {
				var x = cols[sortBy][1](a.m), y = cols[sortBy][1](b.m);
				var c = typeof x === "string" ? x.localeCompare(y) : y - x;

				return up ? -c : c;
			});
			cols.forEach(function (c, i) {
				c.th.className = i === sortBy ? "sorted" + (up ? " up" : "") : "";
			});
			tb.textContent = "";
			rows.forEach(function (r) {
				var ok = !q || (re ? re.test(r.m.label) :
					r.m.label.toLowerCase().indexOf(q.toLowerCase()) >= 0);

				r.tr.style.display = ok ? "" : "none";
				tb.appendChild(r.tr);
				shown += ok;
			});
			count.textContent = shown + " of " + rows.length + " groups; click a row for its distribution";
		}
		var count = el("span", null, null, "count");
		parent.insertBefore(count, wrap);
		f.addEventListener("input", draw);
		draw();
		return t;
	}
	function num(k) {
		return function (m) { return m[k]; };
	}
	function fmtNum(k, unit) {
		return function (m) { return fmtVal(m[k], unit); };
	}

	/* ---- views ---- */
	function measurement(list, width) {
		var d = list[0], unit = d.unit, groups = merge(list), latency = d.kind !== "value";
		var withValues = groups.some(function (m) { return m.buckets.length; });

		if (d.kind === "func") {
			groups.sort(function (a, b) { return b.total - a.total; });
			el("h2", root, "functions");
			table(root, groups, [
				["function", function (m) { return m.label; }, function (m) { return m.label; }],
				["calls", num("count"), function (m) { return String(m.count); }],
				["total", num("total"), fmtNum("total", "ns")],
				["self", num("self"), fmtNum("self", "ns")],
				["avg", num("mean"), fmtNum("mean", "ns")],
				["p50", num("p50"), fmtNum("p50", "ns")],
				["p99", num("p99"), fmtNum("p99", "ns")]
			], list, unit, width, 2);
			return;
		}
		if (flame) {
			el("h2", root, "flame graph");
			root.appendChild(flame);
			flame.style.height = Math.round(flame.clientWidth * flame.dataset.h / flame.dataset.w) + "px";
			flame.style.display = "block";
		}
		if (!groups.length) {
			el("p", root, "no events");
			return;
		}
		groups.sort(function (a, b) {
			return latency ? b.sum - a.sum || b.count - a.count : b.count - a.count;
		});
		if (!withValues || (flame && groups.length > 1)) {
			el("h2", root, flame ? "stacks" : "counts");
			table(root, groups, [
				[d.by.join(", ") || "group", function (m) { return m.label; },
					function (m) { return m.label; }],
				["count", num("count"), function (m) { return String(m.count); }],
				["sum", num("sum"), fmtNum("sum", unit)]
			], list, unit, width, latency ? 2 : 1);
			return;
		}
		if (groups.length <= CARDS) {
			groups.forEach(function (m) {
				card(root, m, list, unit, width, d.by.length > 0);
			});
			return;
		}
		el("h2", root, groups.length + " groups, largest " + (latency ? "total" : "count") + " first");
		table(root, groups, [
			[d.by.join(", "), function (m) { return m.label; }, function (m) { return m.label; }],
			["count", num("count"), function (m) { return String(m.count); }],
			["total", num("sum"), fmtNum("sum", unit)],
			["mean", num("mean"), fmtNum("mean", unit)],
			["p50", num("p50"), fmtNum("p50", unit)],
			["p90", num("p90"), fmtNum("p90", unit)],
			["p99", num("p99"), fmtNum("p99", unit)],
			["max", num("max"), fmtNum("max", unit)]
		], list, unit, width, latency ? 2 : 1);
	}

	function comparison(d) {
		var stats = ["count", "total", "self", "mean", "p50", "p90", "p99", "p999"], rows, t;
		var unit = d.base.unit;

		el("h1", root, "comparison of " + d.base.command);
		t = el("table", root, null, "meta");
		["base", "new"].forEach(function (k) {
			var s = d[k];

			metaRow(t, k, s.file + ": " + s.command + ", " + s.kernel + ", " + s.duration_s.toFixed(2) +
				" s, " + s.groups + " groups" + (s.intervals > 1 ? ", " + s.intervals + " intervals" : ""));
		});
		metaRow(t, "key", d.base.key + (d.base.by ? "; grouped by " + d.base.by : ""));
		metaRow(t, "test", d.test + ", alpha " + d.alpha + ", changes of at least " +
			d.min_change_pct + "%" + (d.count_per_second ? "; counts per second" : ""));
		(d.fail_on || []).forEach(function (r) {
			metaRow(t, "--fail-on", r.rule + ": " + (r.failed ? "FAILED" : "passed"));
		});
		stats = stats.filter(function (s) {
			return d.groups.some(function (g) { return g[s]; });
		});
		function label(g) {
			return Object.keys(g.by).map(function (k) { return g.by[k]; }).join(" ") || "(all)";
		}
		rows = d.groups.map(function (g) {
			return { label: label(g), g: g, verdict: g.verdict,
				p: g.test ? g.test.p : 1, z: g.test ? g.test.z : 0 };
		});
		var cols = [["group", function (r) { return r.label; }, function (r) { return r.label; }],
			["verdict", function (r) { return r.verdict; }, function (r) { return r.verdict; }],
			["p", function (r) { return -r.p; }, function (r) { return r.g.test ? r.p.toPrecision(2) : "-"; }],
			["z", function (r) { return Math.abs(r.z); }, function (r) { return r.g.test ? r.z.toFixed(2) : "-"; }]];
		stats.forEach(function (s) {
			cols.push([s === "p999" ? "p99.9" : s, function (r) {
				return Math.abs(r.g[s].change_pct || 0);
			}, function (r) {
				var x = r.g[s], u = s === "count" ? "" : unit;

				return fmtVal(x.base, u) + " \u2192 " + fmtVal(x.new, u) +
					(x.change_pct === null ? "" : " (" + (x.change_pct > 0 ? "+" : "") +
					x.change_pct.toFixed(1) + "%)");
			}, s]);
		});
		el("h2", root, d.groups.length + " groups in both, most significant first");
		var wrap = el("div", root, null, "scroll"), tt = el("table", wrap, null, "groups");
		var hr = el("tr", el("thead", tt)), tb = el("tbody", tt);

		cols.forEach(function (c) { el("th", hr, c[0]); });
		rows.sort(function (a, b) { return a.p - b.p || Math.abs(b.z) - Math.abs(a.z); });
		rows.forEach(function (r) {
			var tr = el("tr", tb);

			cols.forEach(function (c, i) {
				var td = el("td", tr, c[2](r), i ? null : "label");

				if (i === 1 && r.verdict !== "none")
					td.className = r.verdict;
				if (c[3] && r.g[c[3]].significant)
					td.className = "sig " + (r.verdict !== "none" ? r.verdict : "");
			});
		});
		[["gone_groups", "only in BASE"], ["new_groups", "only in NEW"]].forEach(function (k) {
			if (!d[k[0]] || !d[k[0]].length)
				return;
			el("h2", root, k[1]);
			var ul = el("ul", root);
			d[k[0]].forEach(function (g) {
				el("li", ul, label(g) + ": count " + g.count + ", p50 " + fmtVal(g.p50, unit));
			});
		});
	}

	function draw() {
		var width = Math.min(1168, root.clientWidth - 32 || 800);

		charts.length = 0;
		if (tip)
			hideTip();
		if (flame && flame.parentNode === root)
			root.removeChild(flame);
		root.textContent = "";
		if (docs[0].schema === "kdist.diff/1") {
			comparison(docs[0]);
		} else {
			docs.sort(function (a, b) { return a.interval - b.interval; });
			header(docs);
			measurement(docs, width);
		}
	}
	draw();
	var lastWidth = root.clientWidth, timer = null;
	window.addEventListener("resize", function () {
		clearTimeout(timer);
		timer = setTimeout(function () {
			if (root.clientWidth !== lastWidth) {
				lastWidth = root.clientWidth;
				draw();
			}
		}, 150);
	});
	/* the tests read these lines from the browser's log */
	charts.forEach(function (f) { f(); });
	console.info("kdist: page drawn: " + docs.length + " document(s), schema " + docs[0].schema);
})();
