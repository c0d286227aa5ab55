// The HLO graph view: a layered (Sugiyama-style) layout of one computation at a time, with
// fusions and called computations expanded in place as nested clusters, drawn on a canvas with
// pan and zoom. Only what is expanded is laid out, and only what is in view is drawn, so a
// module of 10,000 instructions stays interactive. No network, no libraries.
"use strict";
(function () {
  const M = JSON.parse(document.getElementById("hlo-model").textContent);
  const I = M.instructions, C = M.computations;
  const users = I.map(() => []), callers = C.map(() => []);
  I.forEach((r, k) => {
    for (const o of r.o) { const u = users[o]; if (u[u.length - 1] !== k) u.push(k); }
    if (r.calls) for (const [, c] of r.calls) callers[c].push(k);
  });
  const BIG = I.length > 400;  // big modules start with every cluster collapsed
  const state = { root: M.entry, expanded: new Set(), colour: "category", selected: -1, hits: [], hitAt: -1,
                  scale: 1, tx: 0, ty: 0 };
  if (!BIG) I.forEach((r, k) => { if (r.op === "fusion") state.expanded.add(k); });

  const CATEGORY = { parameter: "#fff2cc", constant: "#e6e6e6", unary: "#dae8fc", binary: "#dae8fc",
    compare: "#dae8fc", select: "#dae8fc", clamp: "#dae8fc", convert: "#dae8fc", reduction: "#f8cecc",
    data: "#d5e8d4", linalg: "#f5d0a9", control: "#e1d5e7", collective: "#ffe6cc", async: "#ffe6cc",
    source: "#fff2cc", misc: "#ffffff" };
  const LEGEND = [["elementwise", "#dae8fc"], ["reduction", "#f8cecc"], ["data movement", "#d5e8d4"],
    ["dot/conv", "#f5d0a9"], ["control", "#e1d5e7"], ["parameter", "#fff2cc"], ["constant", "#e6e6e6"],
    ["fusion (collapsed)", "#efe3fb"]];
  const CLUSTER = { fusion: ["#f4ecfc", "#9b59b6"], called: ["#e9f3fd", "#4a90d9"], entry: ["#f5f5f5", "#999999"] };
  const FUSION_NODE = "#efe3fb";
  const NODE_H = 44, GAP_X = 18, GAP_Y = 34, PAD = 10, HEAD = 20, MAX_W = 260, MIN_W = 70, DUMMY_W = 4, MAX_SPAN = 60;

  const canvas = document.getElementById("graph");
  const ctx = canvas.getContext("2d");
  const $ = (id) => document.getElementById(id);

  // -- sizes ----------------------------------------------------------------------------
  const widthCache = new Map();
  function textWidth(text, font) {
    const key = font + "\u0000" + text;
    let w = widthCache.get(key);
    if (w === undefined) { ctx.font = font; w = ctx.measureText(text).width; widthCache.set(key, w); }
    return w;
  }
  const F_NAME = "600 11px system-ui, sans-serif", F_TEXT = "11px system-ui, sans-serif",
    F_SHAPE = "10px ui-monospace, monospace", F_HEAD = "600 11px system-ui, sans-serif";
  function opText(r) { return r.op + (r.v ? " " + r.v : ""); }
  function shapeText(r) { return r.s.length > 44 ? r.s.slice(0, 43) + "…" : r.s; }
  function nodeWidth(r) {
    const w = Math.max(textWidth(r.n, F_NAME), textWidth(opText(r), F_TEXT), textWidth(shapeText(r), F_SHAPE));
    return Math.min(MAX_W, Math.max(MIN_W, w + 14));
  }

  // -- layout ---------------------------------------------------------------------------
  // A laid-out computation: {w, h, items}; an item is a node {k, x, y, w, h, sub?} in local
  // coordinates, where `sub` (an expanded instruction) holds [role, ci, layout, x, y] frames.
  function topoOrder(insts) {
    const local = new Set(insts), seen = new Set(), out = [];
    for (const start of insts) {
      if (seen.has(start)) continue;
      const stack = [[start, 0]];
      seen.add(start);
      while (stack.length) {
        const top = stack[stack.length - 1], ops = I[top[0]].o;
        if (top[1] < ops.length) {
          const o = ops[top[1]++];
          if (local.has(o) && !seen.has(o)) { seen.add(o); stack.push([o, 0]); }
        } else { out.push(top[0]); stack.pop(); }
      }
    }
    return out;
  }

  function layoutComputation(ci, depth) {
    const comp = C[ci], order = topoOrder(comp.insts), local = new Set(order);
    const node = new Map();
    for (const k of order) node.set(k, sizeNode(k, depth));
    const rank = new Map();
    for (const k of order) {
      let r = 0;
      for (const o of I[k].o) if (local.has(o)) r = Math.max(r, rank.get(o) + 1);
      rank.set(k, r);
    }
    for (let i = order.length - 1; i >= 0; i--) {  // sources sit just above their first user
      const k = order[i];
      if (I[k].o.some((o) => local.has(o))) continue;
      let r = Infinity;
      for (const u of users[k]) if (local.has(u)) r = Math.min(r, rank.get(u) - 1);
      if (r !== Infinity && r > rank.get(k)) rank.set(k, r);
    }
    // Edges spanning several layers run through one small dummy node per layer they cross, so
    // the ordering sees them and they pass between nodes, not through them (within a budget:
    // beyond it, or beyond MAX_SPAN layers, an edge is drawn straight).
    const up = new Map(), down = new Map(), chains = new Map();
    for (const k of order) { up.set(k, []); down.set(k, []); }
    let budget = 4 * order.length + 100;
    for (const k of order) {
      for (const o of new Set(I[k].o)) {
        if (!local.has(o)) continue;
        const span = rank.get(k) - rank.get(o);
        if (span <= 1 || span > MAX_SPAN || budget < span - 1) { up.get(k).push(o); down.get(o).push(k); continue; }
        budget -= span - 1;
        let prev = o;
        const chain = [];
        for (let r = rank.get(o) + 1; r < rank.get(k); r++) {
          const d = "d" + k + "_" + o + "_" + r;
          node.set(d, { k: d, x: 0, y: 0, w: DUMMY_W, h: 0, dummy: true });
          rank.set(d, r); up.set(d, [prev]); down.set(d, []); down.get(prev).push(d);
          chain.push(d);
          prev = d;
        }
        up.get(k).push(prev); down.get(prev).push(k);
        chains.set(o + ">" + k, chain);
      }
    }
    const layers = [];
    for (const [k, r] of rank) (layers[r] = layers[r] || []).push(k);
    for (let i = 0; i < layers.length; i++) if (!layers[i]) layers[i] = [];
    const cx = new Map();
    for (const layer of layers) pack(layer, node, cx, null);
    const mean = (ks) => {
      let s = 0, n = 0;
      for (const k of ks) { s += cx.get(k); n++; }
      return n ? s / n : null;
    };
    for (let sweep = 0; sweep < 5; sweep++) {
      const goingDown = sweep % 2 === 0;
      for (let j = 0; j < layers.length; j++) {
        const layer = layers[goingDown ? j : layers.length - 1 - j];
        const want = new Map();
        for (const k of layer) { const m = mean(goingDown ? up.get(k) : down.get(k)); want.set(k, m === null ? cx.get(k) : m); }
        pack(layer, node, cx, want);
      }
    }
    let minX = Infinity, maxX = -Infinity;
    for (const [k, n] of node) { minX = Math.min(minX, cx.get(k) - n.w / 2); maxX = Math.max(maxX, cx.get(k) + n.w / 2); }
    if (!order.length) { minX = 0; maxX = 120; }
    let y = PAD;
    const items = [], span = new Map();  // dummy -> [x, top, bottom] of the layer it crosses
    for (const layer of layers) {
      let h = 0;
      for (const k of layer) h = Math.max(h, node.get(k).h);
      for (const k of layer) {
        const n = node.get(k);
        n.x = cx.get(k) - n.w / 2 - minX + PAD;
        n.y = y;
        if (n.dummy) span.set(k, [n.x + n.w / 2, y, y + h]); else items.push(n);
      }
      y += h + GAP_Y;
    }
    const routes = new Map();
    for (const [key, chain] of chains) routes.set(key, chain.map((d) => span.get(d)));
    return { ci, w: maxX - minX + 2 * PAD, h: Math.max(y - GAP_Y + PAD, NODE_H + 2 * PAD), items, local, routes };
  }

  // Orders a layer by wanted centre (or keeps its order) and places nodes left to right without
  // overlap, then shifts the layer so its nodes sit, on average, where they want to be.
  function pack(layer, node, cx, want) {
    if (want) layer.sort((a, b) => want.get(a) - want.get(b));
    let right = -Infinity, shift = 0;
    for (const k of layer) {
      const w = node.get(k).w;
      const desired = want ? want.get(k) : right === -Infinity ? w / 2 : right + GAP_X + w / 2;
      const x = Math.max(desired, right + GAP_X + w / 2);
      cx.set(k, x);
      right = x + w / 2;
      shift += x - desired;
    }
    if (want && layer.length) { shift /= layer.length; for (const k of layer) cx.set(k, cx.get(k) - shift); }
  }

  function sizeNode(k, depth) {
    const r = I[k];
    if (!(r.calls && r.calls.length && state.expanded.has(k) && depth < 24)) return { k, x: 0, y: 0, w: nodeWidth(r), h: NODE_H };
    const frames = [];
    let w = PAD, h = 0;
    for (const [role, ci] of r.calls) {
      const sub = layoutComputation(ci, depth + 1);
      frames.push([role, ci, sub, w, HEAD + 16]);
      w += sub.w + PAD;
      h = Math.max(h, sub.h);
    }
    const headW = textWidth(r.n + "  " + opText(r), F_HEAD) + 2 * PAD;
    return { k, x: 0, y: 0, w: Math.max(w, headW), h: HEAD + 16 + h + PAD, sub: frames };
  }

  // -- the flat scene (world coordinates) -------------------------------------------------
  let scene = null;
  function edge(a, b, pts, ctrl) {  // pts: the route, top to bottom; x0..y1 its bounding box
    let x0 = Infinity, x1 = -Infinity;
    for (const [x] of pts) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); }
    return { a, b, pts, ctrl, x0, x1, y0: pts[0][1], y1: pts[pts.length - 1][1] };
  }
  function buildScene() {
    const t0 = performance.now();
    const nodes = [], clusters = [], frames = [], edges = [], where = new Map();
    function place(layout, ox, oy) {  // a computation called from several places is drawn at each
      const here = new Map();
      for (const n of layout.items) {
        const box = { k: n.k, x: n.x + ox, y: n.y + oy, w: n.w, h: n.h, sub: !!n.sub };
        here.set(n.k, box);
        if (!where.has(n.k)) where.set(n.k, box);
        if (n.sub) {
          clusters.push(box);
          for (const [role, ci, sub, fx, fy] of n.sub) {
            frames.push({ ci, role, x: box.x + fx, y: box.y + fy, w: sub.w, h: sub.h });
            place(sub, box.x + fx, box.y + fy);
          }
        } else nodes.push(box);
      }
      for (const n of layout.items) {
        const r = I[n.k], to = here.get(n.k), ops = r.o.filter((o) => layout.local.has(o));
        ops.forEach((o, i) => {
          const from = here.get(o), pts = [[from.x + from.w / 2, from.y + from.h]];
          for (const [x, top, bottom] of layout.routes.get(o + ">" + n.k) || []) pts.push([x + ox, top + oy], [x + ox, bottom + oy]);
          pts.push([to.x + to.w * (i + 1) / (ops.length + 1), to.y]);
          edges.push(edge(o, n.k, pts, false));
        });
        for (const p of r.ctrl || []) {
          const from = here.get(p);
          if (from) edges.push(edge(p, n.k, [[from.x + from.w / 2, from.y + from.h], [to.x + to.w / 2, to.y]], true));
        }
      }
    }
    const top = layoutComputation(state.root, 0);
    place(top, 0, 0);
    scene = { w: top.w, h: top.h, nodes, clusters, frames, edges, where, ms: performance.now() - t0 };
    updateColourRange();
    renderMinimap();
    updateStatus();
  }

  // -- the minimap: the whole scene, drawn once per layout, with the view's rectangle on top ----
  const mini = $("minimap"), miniCtx = mini.getContext("2d"), miniImage = document.createElement("canvas");
  let miniScale = 1;
  function renderMinimap() {
    const aspect = scene.w / scene.h;  // the minimap hugs the scene's shape, within 200 x 140 px
    const W = mini.width = miniImage.width = Math.round(Math.max(40, Math.min(200, 140 * aspect)));
    const H = mini.height = miniImage.height = Math.round(Math.max(40, Math.min(140, 200 / aspect)));
    mini.style.width = W + "px"; mini.style.height = H + "px";
    miniScale = Math.min(W / scene.w, H / scene.h);
    const g = miniImage.getContext("2d");
    g.clearRect(0, 0, W, H);
    for (const b of scene.clusters) { g.fillStyle = "#e4d3f5"; g.fillRect(b.x * miniScale, b.y * miniScale, b.w * miniScale, b.h * miniScale); }
    for (const b of scene.nodes) {
      g.fillStyle = fill(b.k);
      g.fillRect(b.x * miniScale, b.y * miniScale, Math.max(1, b.w * miniScale), Math.max(1, b.h * miniScale));
    }
  }
  function drawMinimap() {
    const dpr = window.devicePixelRatio || 1;
    miniCtx.clearRect(0, 0, mini.width, mini.height);
    miniCtx.drawImage(miniImage, 0, 0);
    const s = state.scale / miniScale;
    miniCtx.strokeStyle = "#d6336c"; miniCtx.lineWidth = 1.5;
    miniCtx.strokeRect(-state.tx / s, -state.ty / s, canvas.width / dpr / s, canvas.height / dpr / s);
  }
  function miniJump(e) {  // centre the view on the point of the minimap under the pointer
    const r = mini.getBoundingClientRect(), [W, H] = viewSize();
    const x = (e.clientX - r.left) / miniScale, y = (e.clientY - r.top) / miniScale;
    state.tx = W / 2 - x * state.scale; state.ty = H / 2 - y * state.scale;
    requestDraw();
  }

  // -- colours ----------------------------------------------------------------------------
  let costMax = 1;
  function updateColourRange() {
    costMax = 1;
    if (state.colour === "category") return;
    const field = state.colour === "bytes" ? "b" : "f";
    for (const box of scene.nodes) costMax = Math.max(costMax, I[box.k][field]);
    for (const box of scene.clusters) costMax = Math.max(costMax, I[box.k][field]);
  }
  const HEAT = [[255, 255, 255], [255, 236, 153], [252, 174, 96], [238, 104, 88]];  // light enough for black text
  function heat(v) {
    const t = v > 0 ? Math.log1p(v) / Math.log1p(costMax) : 0, seg = Math.min(HEAT.length - 2, Math.floor(t * (HEAT.length - 1)));
    const f = t * (HEAT.length - 1) - seg, a = HEAT[seg], b = HEAT[seg + 1];
    return `rgb(${a.map((x, i) => Math.round(x + (b[i] - x) * f)).join(",")})`;
  }
  function fill(k) {
    const r = I[k];
    if (state.colour === "bytes") return heat(r.b);
    if (state.colour === "flops") return heat(r.f);
    if (r.op === "fusion") return FUSION_NODE;
    return CATEGORY[r.c] || "#ffffff";
  }

  // -- drawing ----------------------------------------------------------------------------
  let pending = false;
  const drawn = { nodes: 0, edges: 0, clusters: 0 };
  function requestDraw() { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; draw(); }); } }
  function resize() {
    const dpr = window.devicePixelRatio || 1, rect = canvas.getBoundingClientRect();
    canvas.width = Math.max(1, Math.round(rect.width * dpr));
    canvas.height = Math.max(1, Math.round(rect.height * dpr));
    requestDraw();
  }
  function visible(b, v) { return b.x + b.w >= v.x0 && b.x <= v.x1 && b.y + b.h >= v.y0 && b.y <= v.y1; }
  function draw() {
    const dpr = window.devicePixelRatio || 1, s = state.scale;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#fafafa";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(dpr * s, 0, 0, dpr * s, dpr * state.tx, dpr * state.ty);
    const v = { x0: -state.tx / s, y0: -state.ty / s, x1: (canvas.width / dpr - state.tx) / s, y1: (canvas.height / dpr - state.ty) / s };
    const text = s >= 0.4, px = 1 / s;
    drawn.nodes = drawn.edges = drawn.clusters = 0;
    for (const b of scene.clusters) {
      if (!visible(b, v)) continue;
      drawn.clusters++;
      const r = I[b.k], [bg, border] = CLUSTER[r.op === "fusion" ? "fusion" : "called"];
      roundRect(b.x, b.y, b.w, b.h, 8);
      ctx.fillStyle = bg;
      ctx.fill();
      if (state.colour !== "category") {  // the cost shows in the header strip; the inside stays readable
        ctx.save(); ctx.clip();
        ctx.fillStyle = heat(state.colour === "bytes" ? r.b : r.f);
        ctx.fillRect(b.x, b.y, b.w, HEAD);
        ctx.restore();
        roundRect(b.x, b.y, b.w, b.h, 8);
      }
      ctx.lineWidth = (b.k === state.selected ? 3 : 1.5) * Math.max(1, px * 0.7);
      ctx.strokeStyle = b.k === state.selected ? "#ff8c00" : border;
      ctx.stroke();
      if (text) {
        ctx.fillStyle = "#333"; ctx.font = F_HEAD;
        ctx.fillText(clip(`${r.n}  ${opText(r)}  ${r.s}`, b.w - 2 * PAD, F_HEAD), b.x + PAD, b.y + 14);
      }
    }
    for (const f of scene.frames) {
      if (!visible(f, v)) continue;
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.strokeStyle = "#aaa"; ctx.lineWidth = px;
      ctx.strokeRect(f.x, f.y, f.w, f.h);
      ctx.setLineDash([]);
      if (text) { ctx.fillStyle = "#666"; ctx.font = F_TEXT; ctx.fillText(clip(`${f.role}: ${C[f.ci].name}`, f.w, F_TEXT), f.x + 2, f.y - 4); }
    }
    ctx.lineWidth = Math.max(1, px * 0.8);
    const sel = state.selected, mine = [];  // the selected instruction's edges go on top, in its colour
    for (const ctrl of [false, true]) {
      ctx.beginPath();
      for (const e of scene.edges) {
        if (e.ctrl !== ctrl) continue;
        if (e.x1 < v.x0 || e.x0 > v.x1 || e.y1 < v.y0 || e.y0 > v.y1) continue;
        drawn.edges++;
        if (e.a === sel || e.b === sel) mine.push(e); else route(e);
      }
      ctx.strokeStyle = ctrl ? "#cc0000" : "#8a8f98";
      if (ctrl) ctx.setLineDash([3 * px, 3 * px]);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    if (mine.length) {
      ctx.beginPath();
      for (const e of mine) route(e);
      ctx.strokeStyle = "#ff8c00"; ctx.lineWidth = 2.5 * Math.max(1, px * 0.8);
      ctx.stroke();
    }
    const hits = new Set(state.hits);
    for (const b of scene.nodes) {
      if (!visible(b, v)) continue;
      drawn.nodes++;
      const r = I[b.k];
      roundRect(b.x, b.y, b.w, b.h, 5);
      ctx.fillStyle = fill(b.k);
      ctx.fill();
      const root = C[r.comp].root === b.k;
      ctx.lineWidth = (b.k === state.selected || hits.has(b.k) ? 3 : root ? 2 : 1) * Math.max(1, px * 0.6);
      ctx.strokeStyle = b.k === state.selected ? "#ff8c00" : hits.has(b.k) ? "#d6336c" : r.calls ? "#8e44ad" : "#666";
      ctx.stroke();
      if (!text) continue;
      ctx.fillStyle = "#111"; ctx.font = F_NAME;
      ctx.fillText(clip(r.n, b.w - 12, F_NAME), b.x + 6, b.y + 13);
      ctx.fillStyle = "#333"; ctx.font = F_TEXT;
      ctx.fillText(clip(opText(r) + (r.calls && !state.expanded.has(b.k) ? "  ⊞" : ""), b.w - 12, F_TEXT), b.x + 6, b.y + 26);
      ctx.fillStyle = "#555"; ctx.font = F_SHAPE;
      ctx.fillText(clip(shapeText(r), b.w - 12, F_SHAPE), b.x + 6, b.y + 38);
    }
    document.body.dataset.drawnNodes = drawn.nodes;
    drawMinimap();
  }
  function route(e) {  // adds an edge's path: curves between layers, straight down through them
    const p = e.pts;
    ctx.moveTo(p[0][0], p[0][1]);
    for (let i = 1; i < p.length; i++) {
      const [xa, ya] = p[i - 1], [xb, yb] = p[i];
      if (xa === xb) { ctx.lineTo(xb, yb); continue; }
      const dy = Math.max(12, Math.abs(yb - ya) / 2);
      ctx.bezierCurveTo(xa, ya + dy, xb, yb - dy, xb, yb);
    }
  }
  function roundRect(x, y, w, h, r) {
    ctx.beginPath();
    ctx.moveTo(x + r, y); ctx.arcTo(x + w, y, x + w, y + h, r); ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r); ctx.arcTo(x, y, x + w, y, r); ctx.closePath();
  }
  function clip(t, w, font) {
    if (textWidth(t, font) <= w) return t;
    let lo = 0, hi = t.length;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (textWidth(t.slice(0, mid) + "…", font) <= w) lo = mid; else hi = mid - 1; }
    return t.slice(0, lo) + "…";
  }

  // -- view -------------------------------------------------------------------------------
  function viewSize() { const r = canvas.getBoundingClientRect(); return [r.width, r.height]; }
  function fit() {
    const [W, H] = viewSize();
    state.scale = Math.min(1.2, Math.max(0.01, Math.min((W - 20) / scene.w, (H - 20) / scene.h)));
    state.tx = (W - scene.w * state.scale) / 2;
    state.ty = Math.max(10, (H - scene.h * state.scale) / 2);
    requestDraw();
  }
  function centreOn(k, scale) {
    const b = scene.where.get(k);
    if (!b) return;
    const [W, H] = viewSize();
    if (scale) state.scale = scale;
    state.tx = W / 2 - (b.x + b.w / 2) * state.scale;
    state.ty = H / 2 - (b.y + Math.min(b.h, 80) / 2) * state.scale;
    requestDraw();
  }
  function initialView() {  // the whole graph if it is readable so, else its top (the inputs) at a readable size
    fit();
    if (state.scale >= 0.35) return;
    const [W] = viewSize();
    state.scale = 0.8;
    state.tx = (W - scene.w * state.scale) / 2;
    state.ty = 10;
    requestDraw();
  }
  function relayout(keep) {
    const before = keep !== undefined ? scene.where.get(keep) : null;
    const sx = before ? before.x * state.scale + state.tx : 0, sy = before ? before.y * state.scale + state.ty : 0;
    buildScene();
    const after = keep !== undefined ? scene.where.get(keep) : null;
    if (before && after) { state.tx = sx - after.x * state.scale; state.ty = sy - after.y * state.scale; }
    requestDraw();
  }
  function hitTest(px, py) {
    const x = (px - state.tx) / state.scale, y = (py - state.ty) / state.scale;
    for (const b of scene.nodes) if (x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h) return b.k;
    let best = -1, area = Infinity;  // the innermost cluster under the pointer
    for (const b of scene.clusters) {
      if (x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h && b.w * b.h < area) { best = b.k; area = b.w * b.h; }
    }
    return best;
  }

  // -- actions ----------------------------------------------------------------------------
  function toggle(k) {
    if (!I[k].calls) return;
    if (state.expanded.has(k)) state.expanded.delete(k); else state.expanded.add(k);
    relayout(k);
  }
  function setRoot(ci) {
    state.root = ci;
    $("comp").value = String(ci);
    buildScene();
    initialView();
  }
  function reveal(k) {  // expand the clusters around k (or open the computation holding it)
    let ci = I[k].comp;
    const path = [];
    const seen = new Set();
    while (ci !== state.root && callers[ci].length && !seen.has(ci)) {
      seen.add(ci);
      const caller = callers[ci][0];
      path.push(caller);
      ci = I[caller].comp;
    }
    if (ci !== state.root) { state.root = ci; $("comp").value = String(ci); }
    for (const c of path) state.expanded.add(c);
    buildScene();
    select(k);
    centreOn(k, Math.max(state.scale, 0.8));
  }
  function select(k) {
    state.selected = k;
    showPanel(k);
    try {  // the address names the selection (g.html#NAME opens there)
      history.replaceState(null, "", k >= 0 ? "#" + encodeURIComponent(I[k].n) : location.pathname);
    } catch (err) { /* a browser refusing to rewrite a file:// address: the page works without */ }
    requestDraw();
  }
  function revealHash() {
    const name = decodeURIComponent(location.hash.slice(1));
    const k = name ? I.findIndex((r) => r.n === name) : -1;
    if (k >= 0 && k !== state.selected) reveal(k);
  }

  // -- the panel --------------------------------------------------------------------------
  function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
  function link(k) {
    const a = el("a", I[k].n);
    a.title = I[k].op + " " + I[k].s;
    a.addEventListener("click", () => reveal(k));
    return a;
  }
  function fmt(n) {
    if (n < 1000) return String(n);
    const units = ["K", "M", "G", "T", "P"];
    let i = -1;
    while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
    return n.toFixed(n < 10 ? 2 : 1) + units[i];
  }
  function showPanel(k) {
    const p = $("panel");
    p.textContent = "";
    if (k < 0) { p.style.display = "none"; return; }
    const r = I[k];
    const close = el("button", "×", "close");
    close.addEventListener("click", () => select(-1));
    p.append(close, el("h3", r.n));
    const t = el("table");
    const row = (name, value) => { const tr = el("tr"); tr.append(el("td", name)); const td = el("td"); if (value instanceof Node) td.append(value); else td.textContent = value; tr.append(td); t.append(tr); };
    row("opcode", r.op + (r.v ? " " + r.v : ""));
    row("shape", r.s);
    row("computation", C[r.comp].name + (C[r.comp].root === k ? " (ROOT)" : ""));
    row("category", r.c);
    row("cost", `${fmt(r.f)} flops, ${fmt(r.b)} bytes accessed`);
    if (r.m) {
      if (r.m.op_name) row("op_name", r.m.op_name);
      if (r.m.op_type) row("op_type", r.m.op_type);
      if (r.m.source_file) row("source", r.m.source_file + (r.m.source_line ? ":" + r.m.source_line : ""));
    }
    p.append(t);
    if (r.a && r.a.length) {
      p.append(el("div", "attributes", "sect"));
      const at = el("table");
      for (const [n, v] of r.a) { const tr = el("tr"); tr.append(el("td", n)); const td = el("td"); td.append(el("code", v)); tr.append(td); at.append(tr); }
      p.append(at);
    }
    if (r.calls) {
      p.append(el("div", "calls", "sect"));
      const d = el("div");
      for (const [role, ci] of r.calls) {
        const line = el("div");
        line.append(el("span", `${role}: ${C[ci].name} (${C[ci].insts.length}) `));
        const open = el("button", "open");
        open.title = "show this computation alone";
        open.addEventListener("click", () => setRoot(ci));
        line.append(open);
        d.append(line);
      }
      const b = el("button", state.expanded.has(k) ? "collapse in place" : "expand in place");
      b.addEventListener("click", () => { toggle(k); showPanel(k); });
      d.append(b);
      p.append(d);
    }
    const list = (title, ks) => {
      p.append(el("div", `${title} (${ks.length})`, "sect"));
      const d = el("div");
      ks.slice(0, 200).forEach((o, i) => { if (i) d.append(", "); d.append(link(o)); });
      if (ks.length > 200) d.append(` … ${ks.length - 200} more`);
      p.append(d);
    };
    list("operands", r.o);
    list("users", users[k]);
    const c = callers[r.comp];
    if (c.length) list("callers of " + C[r.comp].name, c);
    p.style.display = "block";
  }

  // -- search -----------------------------------------------------------------------------
  function search(q) {
    q = q.trim().toLowerCase();
    const res = $("results");
    res.textContent = "";
    state.hits = [];
    state.hitAt = -1;
    if (q) {
      for (let k = 0; k < I.length; k++) {
        const r = I[k];
        if (r.n.toLowerCase().includes(q) || r.op === q || r.op.includes(q) ||
            (r.m && r.m.op_name && r.m.op_name.toLowerCase().includes(q))) state.hits.push(k);
      }
      for (const k of state.hits.slice(0, 300)) {
        const li = el("li");
        li.append(I[k].n + " ", el("span", `${I[k].op} ${I[k].s}  in ${C[I[k].comp].name}`));
        li.addEventListener("click", () => { res.style.display = "none"; reveal(k); });
        res.append(li);
      }
      if (state.hits.length > 300) res.append(el("li", `… ${state.hits.length - 300} more (Enter steps through all)`));
    }
    res.style.display = q ? "block" : "none";
    updateStatus();
    requestDraw();
    return state.hits.length;
  }
  function nextHit() {
    if (!state.hits.length) return;
    state.hitAt = (state.hitAt + 1) % state.hits.length;
    $("results").style.display = "none";
    reveal(state.hits[state.hitAt]);
  }

  function updateStatus() {
    const hits = $("search").value.trim() ? `${state.hits.length} found · ` : "";
    $("status").textContent = `${hits}${scene.nodes.length + scene.clusters.length} shown of ${I.length} instructions · ` +
      `${C.length} computations · layout ${scene.ms.toFixed(0)} ms`;
  }
  function legend() {
    const g = $("legend");
    g.textContent = "";
    if (state.colour === "category") {
      for (const [name, colour] of LEGEND) { const i = el("i"); i.style.background = colour; g.append(i, name); }
    } else {
      g.append(`${state.colour === "bytes" ? "bytes accessed" : "flops"} (log scale): `);
      for (const f of [0, 0.25, 0.5, 0.75, 1]) { const i = el("i"); i.style.background = heat(Math.expm1(f * Math.log1p(costMax))); g.append(i); }
      g.append(` 0 … ${fmt(costMax)}`);
    }
  }

  // -- wiring -----------------------------------------------------------------------------
  $("title").textContent = M.module;
  document.title = M.module + " — HLO graph";
  const sel = $("comp");
  const order = C.map((c, i) => i).sort((a, b) => (a === M.entry ? -1 : b === M.entry ? 1 : 0) ||
    (C[a].kind === "fusion") - (C[b].kind === "fusion"));
  for (const ci of order) {
    const o = el("option", `${C[ci].kind === "entry" ? "ENTRY " : ""}${C[ci].name} (${C[ci].insts.length})`);
    o.value = String(ci);
    sel.append(o);
  }
  sel.addEventListener("change", () => setRoot(Number(sel.value)));
  let searchTimer = 0;
  $("search").addEventListener("input", (e) => { clearTimeout(searchTimer); searchTimer = setTimeout(() => search(e.target.value), 150); });
  $("search").addEventListener("keydown", (e) => { if (e.key === "Enter") { clearTimeout(searchTimer); if (!state.hits.length) search(e.target.value); nextHit(); } if (e.key === "Escape") $("results").style.display = "none"; });
  $("colour").addEventListener("change", (e) => { state.colour = e.target.value; updateColourRange(); renderMinimap(); legend(); requestDraw(); });
  let miniDrag = false;
  mini.addEventListener("mousedown", (e) => { miniDrag = true; miniJump(e); e.stopPropagation(); });
  window.addEventListener("mousemove", (e) => { if (miniDrag) miniJump(e); });
  window.addEventListener("mouseup", () => { miniDrag = false; });
  window.addEventListener("hashchange", revealHash);
  $("fit").addEventListener("click", fit);
  $("expand").addEventListener("click", () => { I.forEach((r, k) => { if (r.op === "fusion") state.expanded.add(k); }); relayout(); });
  $("collapse").addEventListener("click", () => { state.expanded.clear(); relayout(); fit(); });

  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, y: e.clientY, tx: state.tx, ty: state.ty, moved: false }; canvas.style.cursor = "grabbing"; });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    state.tx = drag.tx + dx; state.ty = drag.ty + dy;
    requestDraw();
  });
  window.addEventListener("mouseup", (e) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    canvas.style.cursor = "grab";
    if (!moved && e.target === canvas) {
      const r = canvas.getBoundingClientRect();
      select(hitTest(e.clientX - r.left, e.clientY - r.top));
    }
  });
  canvas.addEventListener("dblclick", (e) => {
    const r = canvas.getBoundingClientRect();
    const k = hitTest(e.clientX - r.left, e.clientY - r.top);
    if (k >= 0) { toggle(k); if (state.selected === k) showPanel(k); }
  });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
    const f = Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.0015));
    const s = Math.min(4, Math.max(0.005, state.scale * f));
    state.tx = mx - (mx - state.tx) * s / state.scale;
    state.ty = my - (my - state.ty) * s / state.scale;
    state.scale = s;
    requestDraw();
  }, { passive: false });
  window.addEventListener("resize", resize);
  window.addEventListener("keydown", (e) => {  // "/" search, "f" fit, Escape closes the panel
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "/") { e.preventDefault(); $("search").focus(); }
    else if (e.key === "f") fit();
    else if (e.key === "Escape") { $("results").style.display = "none"; select(-1); }
  });

  sel.value = String(state.root);
  buildScene();
  resize();
  legend();
  initialView();
  revealHash();
  draw();
  // For scripts and tests: the state, the scene and the actions.
  function screenBox(k) {  // where instruction k is drawn, in page coordinates (or null)
    const b = scene.where.get(k), r = canvas.getBoundingClientRect();
    return b ? { x: r.left + b.x * state.scale + state.tx, y: r.top + b.y * state.scale + state.ty,
                 w: b.w * state.scale, h: b.h * state.scale } : null;
  }
  window.hloView = { model: M, state, get scene() { return scene; }, drawn, fit, centreOn, toggle, reveal, select, screenBox,
                     search, setRoot, relayout, setColour(c) { $("colour").value = c; state.colour = c; updateColourRange(); renderMinimap(); legend(); draw(); }, draw };
  document.body.dataset.ready = "1";
})();
