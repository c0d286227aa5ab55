// hlo-opt --report=html: one section per compiled module with the pass timeline, counts after
// each pass, the pass decisions (fusion's reasons) and peak memory. Plain DOM and canvas.
"use strict";
(function () {
  const R = JSON.parse(document.getElementById("hlo-report").textContent);
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  const bytes = (n) => { const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0; while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; } return (i ? n.toFixed(n < 10 ? 2 : 1) : String(n)) + " " + u[i]; };
  const ms = (x) => x >= 100 ? x.toFixed(0) + " ms" : x >= 1 ? x.toFixed(2) + " ms" : x.toFixed(3) + " ms";
  function colour(name) {  // a stable colour per pass name
    let h = 0;
    for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return `hsl(${h % 360}, 55%, 60%)`;
  }

  document.getElementById("title").textContent = "hlo-opt report" + (R.pipeline ? " · " + R.pipeline : "");
  document.getElementById("subtitle").textContent = `${R.modules.length} module${R.modules.length === 1 ? "" : "s"}` +
    (R.command ? " · " + R.command : "");
  const main = document.getElementById("modules");
  for (const m of R.modules) main.append(section(m));
  document.body.dataset.ready = "1";

  function section(m) {
    const s = el("section", undefined, "module");
    s.append(el("h2", m.module + (m.file ? "  (" + m.file + ")" : "")));
    const pts = m.points, first = pts[0], last = pts[pts.length - 1];
    const total = pts.reduce((a, p) => a + p.ms, 0);
    const cards = el("div", undefined, "cards");
    const card = (value, label) => { const c = el("div", undefined, "card"); c.append(el("b", value), el("span", label)); cards.append(c); };
    card(ms(total), `compile time (${pts.length - 1} pass applications)`);
    card(`${first.instructions} → ${last.instructions}`, "instructions");
    card(`${first.kernels} → ${last.kernels}`, "kernels (fusions + unfused ops)");
    card(`${bytes(first.peak_bytes)} → ${bytes(last.peak_bytes)}`, "entry peak live bytes (schedule model)");
    if (m.buffers && m.buffers.arena_bytes !== undefined) card(bytes(m.buffers.arena_bytes), "temp arena (LLVM buffer assignment)");
    s.append(cards);

    s.append(el("h3", "pass timeline"));
    s.append(timeline(pts.slice(1), total));
    s.append(el("div", "Times are measured with the decision log on (as under -vv); --time-passes measures without it.", "note"));
    s.append(el("h3", "instructions and kernels after each pass"));
    s.append(chart(pts, [["instructions", "#4a90d9"], ["kernels", "#e8590c"]], String));
    s.append(el("h3", "entry peak live bytes after each pass"));
    s.append(chart(pts, [["peak_bytes", "#9b59b6"]], bytes));
    s.append(el("h3", "passes"));
    s.append(passTable(pts, m.decisions, total));
    s.append(decisions(m));
    s.append(el("h3", "memory"));
    s.append(memory(m));
    return s;
  }

  function timeline(apps, total) {
    const wrap = el("div");
    const bar = el("div", undefined, "timeline");
    let at = 0;
    const sums = new Map();
    for (const p of apps) {
      const d = el("div");
      d.style.left = (100 * at / (total || 1)) + "%";
      d.style.width = Math.max(0.05, 100 * p.ms / (total || 1)) + "%";
      d.style.background = colour(p.pass.split("{")[0]);
      d.title = `(${p.index}) ${p.pass}: ${ms(p.ms)}${p.changed ? ", changed" : ""}`;
      bar.append(d);
      at += p.ms;
      const name = p.pass.split("{")[0];
      sums.set(name, (sums.get(name) || 0) + p.ms);
    }
    wrap.append(bar);
    const keys = el("div", undefined, "keys");
    for (const [name, t] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
      const i = el("i");
      i.style.background = colour(name);
      keys.append(i, `${name} ${ms(t)} (${(100 * t / (total || 1)).toFixed(1)}%)`);
    }
    wrap.append(keys);
    return wrap;
  }

  function chart(pts, series, fmt) {
    const c = el("canvas", undefined, "chart");
    requestAnimationFrame(() => drawChart(c, pts, series, fmt));
    return c;
  }
  function drawChart(c, pts, series, fmt) {
    const dpr = window.devicePixelRatio || 1, W = c.clientWidth || 800, H = c.clientHeight || 170;
    c.width = W * dpr; c.height = H * dpr;
    const g = c.getContext("2d");
    g.scale(dpr, dpr);
    const L = 70, B = 20, T = 10, Rt = 10;
    let max = 1;
    for (const [key] of series) for (const p of pts) max = Math.max(max, p[key]);
    const x = (i) => L + (W - L - Rt) * (pts.length > 1 ? i / (pts.length - 1) : 0);
    const y = (v) => T + (H - T - B) * (1 - v / max);
    g.font = "11px system-ui, sans-serif"; g.fillStyle = "#666"; g.strokeStyle = "#eee";
    for (const f of [0, 0.5, 1]) { g.beginPath(); g.moveTo(L, y(f * max)); g.lineTo(W - Rt, y(f * max)); g.stroke(); g.fillText(fmt(Math.round(f * max)), 4, y(f * max) + 4); }
    g.fillText("pass application →", L, H - 5);
    series.forEach(([key, col], j) => {
      g.strokeStyle = col; g.lineWidth = 2; g.beginPath();
      pts.forEach((p, i) => { if (i === 0) g.moveTo(x(i), y(p[key])); else { g.lineTo(x(i), y(pts[i - 1][key])); g.lineTo(x(i), y(p[key])); } });
      g.stroke();
      g.fillStyle = col; g.fillText(key, W - Rt - 90, T + 12 + 14 * j);
    });
  }

  function passTable(pts, decs, total) {
    const counts = new Map();
    for (const d of decs) counts.set(d.index, (counts.get(d.index) || 0) + 1);
    const maxMs = Math.max(...pts.map((p) => p.ms), 1e-9);
    const wrap = el("div", undefined, "scroll");
    const t = el("table");
    const head = el("tr");
    for (const h of ["#", "pass", "time", "%", "instructions", "kernels", "peak bytes", "decisions"]) head.append(el("th", h, h === "pass" || h === "time" ? "name" : ""));
    t.append(head);
    pts.forEach((p, i) => {
      if (i === 0) return;
      const prev = pts[i - 1];
      const tr = el("tr", undefined, p.changed ? "changed" : "same");
      tr.append(el("td", String(p.index)), el("td", p.pass, "name"));
      const bar = el("td", undefined, "bar");
      const d = el("div");
      d.style.width = Math.max(1, 160 * p.ms / maxMs) + "px";
      bar.append(d, ms(p.ms));
      tr.append(bar, el("td", (100 * p.ms / (total || 1)).toFixed(1)));
      const delta = (a, b, f) => a === b ? f(b) : `${f(a)} → ${f(b)}`;
      tr.append(el("td", delta(prev.instructions, p.instructions, String)), el("td", delta(prev.kernels, p.kernels, String)),
                el("td", delta(prev.peak_bytes, p.peak_bytes, bytes)), el("td", counts.has(p.index) ? String(counts.get(p.index)) : ""));
      t.append(tr);
    });
    wrap.append(t);
    return wrap;
  }

  function decisions(m) {
    const wrap = el("div");
    const fusion = m.decisions.filter((d) => d.pass.startsWith("fusion") || d.pass.includes("fusion"));
    wrap.append(el("h3", `fusion decisions (${fusion.length})`));
    if (!fusion.length) { wrap.append(el("div", "no fusion pass logged a decision", "note")); }
    const fused = fusion.filter((d) => d.text.startsWith("fused")), refused = fusion.filter((d) => d.text.startsWith("not fused"));
    wrap.append(el("div", `${fused.length} fused, ${refused.length} not fused`));
    const reasons = new Map();
    for (const d of refused) { const r = d.text.split(": ").slice(2).join(": ") || d.text; reasons.set(r, (reasons.get(r) || 0) + 1); }
    if (reasons.size) {
      const t = el("table");
      const head = el("tr"); head.append(el("th", "not fused because", "name"), el("th", "times")); t.append(head);
      for (const [r, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 40)) { const tr = el("tr"); tr.append(el("td", r, "name"), el("td", String(n))); t.append(tr); }
      wrap.append(t);
    }
    const all = el("details");
    all.append(el("summary", `every decision, in order (${m.decisions.length}${m.dropped_decisions ? ", " + m.dropped_decisions + " more not kept" : ""})`));
    const list = el("ol", undefined, "decisions");
    for (const d of m.decisions.slice(0, 5000)) {
      const li = el("li", `(${d.index}) ${d.pass}: ${d.text}`, d.text.startsWith("fused") ? "fused" : d.text.startsWith("not fused") ? "refused" : "");
      list.append(li);
    }
    all.append(list);
    wrap.append(all);
    return wrap;
  }

  function memory(m) {
    const wrap = el("div");
    const b = m.buffers || {};
    if (b.error) { wrap.append(el("div", b.error, "note")); return wrap; }
    if (b.arena_bytes === undefined) { wrap.append(el("div", "no buffer assignment", "note")); return wrap; }
    wrap.append(el("div", `LLVM backend buffer assignment: temp arena ${bytes(b.arena_bytes)} (own peak per computation:)`));
    const t = el("table");
    const head = el("tr"); head.append(el("th", "computation", "name"), el("th", "peak bytes")); t.append(head);
    for (const [n, v] of b.by_computation) { const tr = el("tr"); tr.append(el("td", n, "name"), el("td", bytes(v))); t.append(tr); }
    wrap.append(t);
    return wrap;
  }
})();
