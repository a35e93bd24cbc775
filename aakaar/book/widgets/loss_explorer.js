// Loss explorer: a loss and its gradient as functions of one prediction, for a parameter the reader
// moves (Huber's delta, SmoothL1's beta, a hinge's margin, the cross-entropy's label smoothing, a BCE
// target). The curves are computed here from the closed forms of chapter 14, so the widget responds
// in the static book; tests/book/widgets/test_loss_explorer.py checks every formula against
// aakaar.nn.functional (values) and autograd (gradients).

const softplus = (z) => Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z)));  // log(1 + e^z), stable
const sigmoid = (z) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));
const clip = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
export const CLASSES = 10;
export const RANGE = [-4, 4];  // the x axis of every loss without a range of its own
export const rangeOf = (name) => LOSSES[name].range || RANGE;  // the cross-entropy's C: the target logit x against C - 1 logits at 0

// Each loss: the x axis and its range (default RANGE), its parameter (null: none) with range and
// default, value(x, p), grad(x, p) (d loss / d x), and the library call it mirrors.
export const LOSSES = {
  mse: { label: "MSELoss", axis: "residual x = input - target", param: null,
    call: "mse_loss(x, 0)", value: (x) => x * x, grad: (x) => 2 * x,
    note: "the gradient grows with the residual: one outlier can dominate a batch" },
  l1: { label: "L1Loss", axis: "residual x = input - target", param: null,
    call: "l1_loss(x, 0)", value: (x) => Math.abs(x), grad: (x) => Math.sign(x),
    note: "every residual pulls with the same force, 1; the gradient at 0 is taken as 0" },
  huber: { label: "HuberLoss", axis: "residual x = input - target", param: { name: "delta", min: 0.1, max: 3, step: 0.1, default: 1 },
    call: "huber_loss(x, 0, delta=p)",
    value: (x, d) => (Math.abs(x) < d ? 0.5 * x * x : d * (Math.abs(x) - 0.5 * d)),
    grad: (x, d) => clip(x, -d, d),
    note: "quadratic inside |x| < delta, linear outside: the gradient is clipped at +-delta" },
  smooth_l1: { label: "SmoothL1Loss", axis: "residual x = input - target", param: { name: "beta", min: 0, max: 3, step: 0.1, default: 1 },
    call: "smooth_l1_loss(x, 0, beta=p)",
    value: (x, b) => (Math.abs(x) < b ? 0.5 * x * x / b : Math.abs(x) - 0.5 * b),
    grad: (x, b) => (b === 0 ? Math.sign(x) : clip(x / b, -1, 1)),
    note: "Huber divided by beta: the gradient is clipped at +-1; beta = 0 is the L1 loss" },
  bce_with_logits: { label: "BCEWithLogitsLoss", axis: "logit x", param: { name: "target", min: 0, max: 1, step: 0.05, default: 1 },
    call: "binary_cross_entropy_with_logits(x, target)",
    value: (x, t) => softplus(x) - t * x, grad: (x, t) => sigmoid(x) - t,
    note: "gradient sigmoid(x) - target; the minimum sits at sigmoid(x) = target (none for 0 or 1)" },
  soft_margin: { label: "SoftMarginLoss", axis: "margin x = y * prediction", param: null,
    call: "soft_margin_loss(x, 1)", value: (x) => softplus(-x), grad: (x) => -sigmoid(-x),
    note: "log(1 + e^-x): BCE with logits for labels +-1; it never stops pulling, however right" },
  hinge: { label: "hinge (MarginRankingLoss, y = 1)", axis: "margin x = y * prediction", param: { name: "margin", min: 0, max: 3, step: 0.1, default: 1 },
    call: "margin_ranking_loss(x, 0, 1, margin=p)",
    value: (x, m) => Math.max(0, m - x), grad: (x, m) => (m - x > 0 ? -1 : 0),
    note: "max(0, margin - x): no gradient at all once the margin is met" },
  cross_entropy: { label: "CrossEntropyLoss", axis: `target logit x (the other ${CLASSES - 1} logits are 0)`, range: [-3, 9],
    param: { name: "label_smoothing", min: 0, max: 0.5, step: 0.01, default: 0 },
    call: "cross_entropy([x, 0, ...], 0, label_smoothing=p)",
    // lse = log(e^x + C - 1); loss = (1 - eps) (lse - x) + eps / C * sum_c (lse - x_c) = lse - q x
    value: (x, e) => softplus(x - Math.log(CLASSES - 1)) + Math.log(CLASSES - 1) - (1 - e + e / CLASSES) * x,
    grad: (x, e) => sigmoid(x - Math.log(CLASSES - 1)) - (1 - e + e / CLASSES),
    note: "gradient p - q: with smoothing the target q = 1 - eps + eps / C is reached at a finite logit" },
};

// The value and gradient of loss `name` at x with parameter p.
export function evaluate(name, x, p) {
  const loss = LOSSES[name];
  return { value: loss.value(x, p), grad: loss.grad(x, p) };
}

// Where the gradient vanishes for the current parameter (the loss's minimum), or null if nowhere.
export function minimiser(name, p) {
  if (name === "bce_with_logits") return p > 0 && p < 1 ? Math.log(p / (1 - p)) : null;
  if (name === "cross_entropy") {
    const q = 1 - p + p / CLASSES;
    return q < 1 ? Math.log(q / (1 - q)) + Math.log(CLASSES - 1) : null;
  }
  if (name === "soft_margin") return null;
  if (name === "hinge") return null;  // every x >= margin has gradient 0
  return 0;
}

// `n` evenly spaced samples of value and gradient over [lo, hi].
export function curve(name, p, lo = -4, hi = 4, n = 241) {
  const xs = [], values = [], grads = [];
  for (let i = 0; i < n; i++) {
    const x = lo + (hi - lo) * i / (n - 1);
    const r = evaluate(name, x, p);
    xs.push(x); values.push(r.value); grads.push(r.grad);
  }
  return { xs, values, grads };
}

const SVG = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const W = 560, H = 170, PAD = { l: 44, r: 10, t: 8, b: 22 };

// One panel: a curve over [LO, HI], axes at 0, and a marker at x. Returns the svg and its redraw.
function panel(title, colour) {
  let LO = RANGE[0], HI = RANGE[1];
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", class: "ak-loss-panel" });
  svg.style.maxWidth = `${W}px`; svg.style.touchAction = "none"; svg.style.cursor = "ew-resize";
  const sx = (x) => PAD.l + (x - LO) / (HI - LO) * (W - PAD.l - PAD.r);
  const invx = (px) => LO + (px - PAD.l) / (W - PAD.l - PAD.r) * (HI - LO);
  function redraw(xs, ys, x, y) {
    LO = xs[0]; HI = xs[xs.length - 1];
    svg.replaceChildren();
    let lo = Math.min(0, ...ys), hi = Math.max(0, ...ys);
    if (hi - lo < 1e-9) { hi += 1; lo -= 1; }
    const padY = 0.06 * (hi - lo); lo -= padY; hi += padY;
    const sy = (v) => PAD.t + (hi - v) / (hi - lo) * (H - PAD.t - PAD.b);
    const axis = { stroke: "currentColor", "stroke-opacity": 0.35, "stroke-width": 1 };
    svg.append(svgEl("line", { x1: PAD.l, x2: W - PAD.r, y1: sy(0), y2: sy(0), ...axis }),
               svgEl("line", { x1: sx(0), x2: sx(0), y1: PAD.t, y2: H - PAD.b, ...axis }));
    for (const v of [lo + padY, hi - padY]) {
      const t = svgEl("text", { x: PAD.l - 4, y: sy(v) + 4, "text-anchor": "end", "font-size": 10, fill: "currentColor" });
      t.textContent = v.toFixed(Math.abs(v) < 10 ? 2 : 0); svg.append(t);
    }
    for (const v of [LO, LO / 2, 0, HI / 2, HI]) {
      if (v !== 0 && Math.abs(v) < 0.2 * (HI - LO) && v !== LO && v !== HI) continue;
      const t = svgEl("text", { x: sx(v), y: H - 6, "text-anchor": "middle", "font-size": 10, fill: "currentColor" });
      t.textContent = String(v); svg.append(t);
    }
    const name = svgEl("text", { x: W - PAD.r - 4, y: PAD.t + 12, "text-anchor": "end", "font-size": 11, fill: colour });
    name.textContent = title; svg.append(name);
    const d = xs.map((v, i) => `${i ? "L" : "M"}${sx(v).toFixed(1)},${sy(ys[i]).toFixed(1)}`).join("");
    svg.append(svgEl("path", { d, fill: "none", stroke: colour, "stroke-width": 2 }));
    svg.append(svgEl("line", { x1: sx(x), x2: sx(x), y1: PAD.t, y2: H - PAD.b, stroke: "#d33", "stroke-dasharray": "3,3" }));
    svg.append(svgEl("circle", { cx: sx(x), cy: sy(clip(y, lo, hi)), r: 5, fill: "#d33", class: "ak-loss-point" }));
  }
  return { svg, redraw, invx };
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-loss-explorer");
  const controls = el("div", "ak-controls");
  const pick = el("select", "ak-loss");
  for (const [key, loss] of Object.entries(LOSSES)) {
    const o = el("option", "", loss.label); o.value = key; pick.appendChild(o);
  }
  const pickLabel = el("label", "ak-label", "loss "); pickLabel.appendChild(pick);
  const paramLabel = el("label", "ak-label");
  const paramName = el("span", "ak-param-name");
  const param = el("input", "ak-param"); param.type = "range";
  const paramText = el("span", "ak-param-value");
  paramLabel.append(paramName, param, paramText);
  const xLabel = el("label", "ak-label", "x ");
  const xInput = el("input", "ak-x"); xInput.type = "text"; xInput.spellcheck = false;
  xLabel.appendChild(xInput);
  controls.append(pickLabel, paramLabel, xLabel);
  const summary = el("pre", "ak-summary");
  const top = panel("loss", "rgb(60,130,220)");
  const bottom = panel("d loss / dx", "rgb(230,140,30)");
  const caption = el("div", "ak-caption", "drag on either plot to move x");
  root.append(controls, summary, top.svg, bottom.svg, caption);

  const current = () => {
    const name = model.get("loss"), spec = LOSSES[name].param;
    const params = model.get("params") || {};
    return { name, spec, p: spec ? (params[name] ?? spec.default) : null };
  };

  function draw() {
    const { name, spec, p } = current();
    const x = model.get("x"), loss = LOSSES[name];
    pick.value = name;
    paramLabel.style.display = spec ? "" : "none";
    if (spec) {
      paramName.textContent = `${spec.name} `;
      param.min = String(spec.min); param.max = String(spec.max); param.step = String(spec.step);
      param.value = String(p); paramText.textContent = p.toFixed(2);
    }
    if (document.activeElement !== xInput) xInput.value = x.toFixed(2);
    const [lo, hi] = rangeOf(name);
    const c = curve(name, p, lo, hi);
    const at = evaluate(name, x, p);
    top.redraw(c.xs, c.values, x, at.value);
    bottom.redraw(c.xs, c.grads, x, at.grad);
    const m = minimiser(name, p);
    summary.classList.remove("ak-error");
    summary.textContent = [
      `${loss.label}: ${loss.call}${spec ? `, ${spec.name} = ${p.toFixed(2)}` : ""}; x axis: ${loss.axis}`,
      `at x = ${x.toFixed(2)}: loss ${at.value.toFixed(4)}, gradient ${at.grad.toFixed(4)}`,
      loss.note + (m === null ? "" : `; minimum at x = ${m.toFixed(3)}`),
    ].join("\n");
  }

  const setX = (x) => {
    const [lo, hi] = rangeOf(model.get("loss"));
    model.set("x", Math.round(clip(x, lo, hi) * 100) / 100); model.save_changes();
  };
  for (const pnl of [top, bottom]) {
    const move = (ev) => {
      const r = pnl.svg.getBoundingClientRect();
      setX(pnl.invx((ev.clientX - r.left) / r.width * W));
    };
    pnl.svg.addEventListener("pointerdown", (ev) => { pnl.svg.setPointerCapture?.(ev.pointerId); move(ev); });
    pnl.svg.addEventListener("pointermove", (ev) => { if (ev.buttons & 1) move(ev); });
  }
  pick.addEventListener("change", () => {
    const [lo, hi] = rangeOf(pick.value);
    model.set("loss", pick.value); model.set("x", clip(model.get("x"), lo, hi)); model.save_changes();
  });
  param.addEventListener("input", () => {
    const { name } = current();
    model.set("params", { ...(model.get("params") || {}), [name]: parseFloat(param.value) });
    model.save_changes();
  });
  xInput.addEventListener("change", () => {
    const v = Number(xInput.value.trim());
    const [lo, hi] = rangeOf(model.get("loss"));
    if (xInput.value.trim() === "" || !Number.isFinite(v)) {
      xInput.classList.add("ak-bad"); summary.classList.add("ak-error");
      summary.textContent = `error: x must be a number between ${lo} and ${hi}`; return;
    }
    xInput.classList.remove("ak-bad"); setX(v);
  });
  const keys = ["loss", "params", "x"];
  for (const k of keys) model.on(`change:${k}`, draw);
  draw();
  return () => { for (const k of keys) model.off(`change:${k}`, draw); };
}

export default { render };
