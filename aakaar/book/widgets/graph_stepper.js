// Graph stepper: the backward engine of csrc/autograd/engine.cpp, replayed in the browser.
// 1. count, for every node, the edges that lead into it (its dependencies);
// 2. a node is ready when its count is 0; the ready node created last runs first;
// 3. running a node sends a gradient along each of its edges and decrements the target's count.
// Python only provides the graph (nodes, edges) and the gradients it computed for named tensors.

// Dependency counts: edges into each node from the nodes reachable from the root (node 0).
export function dependencies(nodes, edges) {
  const deps = new Map(nodes.map((n) => [n.id, 0]));
  for (const [, to] of edges) deps.set(to, deps.get(to) + 1);
  return deps;
}

// The engine's schedule: [{run, ready (after the run), received: {id: count}}] one entry per step.
export function schedule(nodes, edges) {
  const deps = dependencies(nodes, edges);
  const seq = new Map(nodes.map((n) => [n.id, n.seq]));
  const out = new Map(nodes.map((n) => [n.id, []]));
  for (const e of edges) out.get(e[0]).push(e);
  const received = new Map(nodes.map((n) => [n.id, 0]));
  let ready = nodes.filter((n) => deps.get(n.id) === 0).map((n) => n.id);
  const steps = [];
  while (ready.length) {
    ready.sort((a, b) => seq.get(b) - seq.get(a));  // latest created first (a priority queue in C++)
    const run = ready.shift();
    const sent = [];
    for (const [, to, nr] of out.get(run)) {
      received.set(to, received.get(to) + 1);
      sent.push([to, nr]);
      deps.set(to, deps.get(to) - 1);
      if (deps.get(to) === 0) ready.push(to);
    }
    steps.push({ run, sent, ready: ready.slice(), received: Object.fromEntries(received) });
  }
  return steps;
}

// Layers for drawing: the longest distance from the root, so every arrow points down.
export function layers(nodes, edges) {
  const depth = new Map(nodes.map((n) => [n.id, 0]));
  for (const step of schedule(nodes, edges))
    for (const [to] of step.sent) depth.set(to, Math.max(depth.get(to), depth.get(step.run) + 1));
  return depth;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const x = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) x.setAttribute(k, v);
  if (text !== undefined) x.textContent = text;
  return x;
}
function el(tag, cls, text) {
  const x = document.createElement(tag);
  if (cls) x.className = cls;
  if (text !== undefined) x.textContent = text;
  return x;
}

const FILL = { done: "rgba(60,170,90,0.45)", running: "rgba(230,70,70,0.55)", ready: "rgba(240,160,40,0.5)",
  waiting: "rgba(60,130,220,0.18)", idle: "rgba(127,127,127,0.08)" };
// A box holds three short lines (the node, the parameter it feeds if any, its gradient count), so a
// long name such as "AccumulateGrad (0.weight)" never runs past the box's edges.
const BOX_W = 150, BOX_H = 52, GAP_X = 20, GAP_Y = 34;

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-graph-stepper");
  const controls = el("div", "ak-controls");
  const button = (text, cls) => { const b = el("button", cls, text); b.type = "button"; controls.appendChild(b); return b; };
  const reset = button("reset", "ak-reset"), back = button("< back", "ak-back");
  const next = button("step >", "ak-step"), all = button("run all", "ak-run-all");
  const counter = el("span", "ak-counter"); controls.appendChild(counter);
  const picture = el("div", "ak-graph");
  const summary = el("pre", "ak-summary");
  root.append(controls, picture, summary);

  function draw() {
    const nodes = model.get("nodes"), edges = model.get("edges");
    const steps = schedule(nodes, edges);
    const k = Math.max(0, Math.min(model.get("step"), steps.length));
    counter.textContent = ` step ${k} of ${steps.length}`;
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const deps = dependencies(nodes, edges);
    const state = new Map(nodes.map((n) => [n.id, deps.get(n.id) === 0 ? "ready" : "idle"]));
    const received = k ? steps[k - 1].received : Object.fromEntries(nodes.map((n) => [n.id, 0]));
    for (let i = 0; i < k; i++) state.set(steps[i].run, i === k - 1 ? "running" : "done");
    if (k) for (const id of steps[k - 1].ready) state.set(id, "ready");
    for (const n of nodes)
      if (state.get(n.id) === "idle" && received[n.id] > 0) state.set(n.id, "waiting");
    const sentNow = new Set(k ? steps[k - 1].sent.map(([to, nr]) => `${steps[k - 1].run}>${to}>${nr}`) : []);
    const ranBefore = new Set(steps.slice(0, k).map((s) => s.run));

    // Layout: one row per layer, nodes side by side.
    const depth = layers(nodes, edges);
    const rows = [];
    for (const n of [...nodes].sort((a, b) => b.seq - a.seq)) {
      const d = depth.get(n.id);
      (rows[d] = rows[d] || []).push(n.id);
    }
    const width = Math.max(...rows.map((r) => r.length)) * (BOX_W + GAP_X) + GAP_X;
    const pos = new Map();
    rows.forEach((r, d) => r.forEach((id, i) => {
      const x = (width - r.length * (BOX_W + GAP_X)) / 2 + GAP_X / 2 + i * (BOX_W + GAP_X);
      pos.set(id, [x, 10 + d * (BOX_H + GAP_Y)]);
    }));
    const height = rows.length * (BOX_H + GAP_Y) + 10;
    const s = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "ak-graph-svg" });
    const defs = svg("defs", {});
    const marker = svg("marker", { id: "ak-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" });
    marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "currentColor" }));
    defs.appendChild(marker); s.appendChild(defs);
    edges.forEach(([from, to, nr], i) => {
      const [x0, y0] = pos.get(from), [x1, y1] = pos.get(to);
      const hot = sentNow.has(`${from}>${to}>${nr}`), used = ranBefore.has(from);
      const bend = edges.slice(0, i).filter((e) => e[0] === from && e[1] === to).length * 14;
      s.appendChild(svg("path", {
        d: `M${x0 + BOX_W / 2},${y0 + BOX_H} C${x0 + BOX_W / 2 + bend},${y0 + BOX_H + 20} ${x1 + BOX_W / 2 + bend},${y1 - 20} ${x1 + BOX_W / 2},${y1}`,
        fill: "none", stroke: hot ? "#e44" : used ? "#3a3" : "rgba(127,127,127,0.6)", "stroke-width": hot ? 3 : 1.4,
        "marker-end": "url(#ak-arrow)", class: hot ? "ak-edge ak-edge-hot" : "ak-edge",
      }));
    });
    for (const n of nodes) {
      const [x, y] = pos.get(n.id);
      const g = svg("g", { class: `ak-node ak-node-${state.get(n.id)}`, "data-id": n.id });
      g.appendChild(svg("rect", { x, y, width: BOX_W, height: BOX_H, rx: 5, fill: FILL[state.get(n.id)], stroke: "rgba(127,127,127,0.8)" }));
      g.appendChild(svg("text", { x: x + BOX_W / 2, y: y + 16, "text-anchor": "middle", "font-size": 12, fill: "currentColor" },
        n.name));
      if (n.label)
        g.appendChild(svg("text", { x: x + BOX_W / 2, y: y + 30, "text-anchor": "middle", "font-size": 11, fill: "currentColor" },
          `(${n.label})`));
      const total = deps.get(n.id);
      g.appendChild(svg("text", { x: x + BOX_W / 2, y: y + 45, "text-anchor": "middle", "font-size": 11, fill: "currentColor" },
        total ? `grads in: ${received[n.id]} of ${total}` : "root: gets 1"));
      s.appendChild(g);
    }
    picture.replaceChildren(s);

    const lines = [];
    if (k === 0) {
      lines.push("before the first step: every node's dependency count is the number of edges into it;",
        "only the root has none, so it is the only ready node. Press step.");
    } else {
      const st = steps[k - 1], n = byId.get(st.run);
      const name = n.label ? `${n.name} (${n.label})` : n.name;
      const got = deps.get(st.run);
      lines.push(`step ${k}: ${name} runs` + (got > 1 ? `: its ${got} incoming gradients were summed first` : ""));
      if (n.grad) lines.push(`  gradient it received: ${n.grad}`);
      if (st.sent.length) lines.push(`  sends a gradient to: ${st.sent.map(([to, nr]) => `${byId.get(to).name}${byId.get(to).label ? " (" + byId.get(to).label + ")" : ""} [input ${nr}]`).join(", ")}`);
      else if (n.name === "AccumulateGrad") lines.push("  a leaf: the gradient is added into .grad");
    }
    const readyNow = k ? steps[k - 1].ready : steps.length ? [steps[0].run] : [];
    lines.push(`ready queue (next first): ${readyNow.map((id) => byId.get(id).name + (byId.get(id).label ? ` (${byId.get(id).label})` : "")).join(", ") || "empty"}`);
    if (k === steps.length) lines.push("done: every node has run exactly once.");
    summary.textContent = lines.join("\n");
    back.disabled = k === 0; next.disabled = all.disabled = k === steps.length;
  }

  const go = (f) => () => { const n = schedule(model.get("nodes"), model.get("edges")).length;
    model.set("step", Math.max(0, Math.min(n, f(model.get("step"), n)))); model.save_changes(); };
  reset.addEventListener("click", go(() => 0));
  back.addEventListener("click", go((s) => s - 1));
  next.addEventListener("click", go((s) => s + 1));
  all.addEventListener("click", go((s, n) => n));
  for (const k of ["nodes", "edges", "step"]) model.on(`change:${k}`, draw);
  draw();
  return () => { for (const k of ["nodes", "edges", "step"]) model.off(`change:${k}`, draw); };
}

export default { render };
