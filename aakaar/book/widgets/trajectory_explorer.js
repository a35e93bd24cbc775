// Trajectory explorer: optimizers' paths on three surfaces, side by side. The paths are the
// library's (aakaar.optim stepping a 2-element parameter, computed in Python for a grid of
// hyperparameters and kept in the widget's state); this module picks the stored path of each
// chosen setting, draws the surfaces and replays the steps, so it responds in the static book.

// The surfaces, as in trajectory_explorer.py (+, - and * only, in the same order).
export const SURFACE_FUNCTIONS = {
  Rosenbrock: (x, y) => (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x),
  Beale: (x, y) => {
    const a = 1.5 - x + x * y, b = 2.25 - x + x * y * y, c = 2.625 - x + x * y * y * y;
    return a * a + b * b + c * c;
  },
  saddle: (x, y) => x * x - y * y,
};

// The stored path of a setting: axes [[name, values], ...], idx the chosen value of each axis;
// settings are stored in itertools.product order (the last axis varies fastest).
export function settingIndex(axes, idx) {
  let k = 0;
  axes.forEach(([, values], a) => { k = k * values.length + idx[a]; });
  return k;
}

// The points of a flat path [x0, y0, x1, y1, ...] (point i is step i * every) up to step `shown`.
export function pointsUpTo(flat, every, shown) {
  const n = Math.min(flat.length / 2, Math.floor(shown / every) + 1);
  const out = [];
  for (let i = 0; i < n; i++) out.push([flat[2 * i], flat[2 * i + 1]]);
  return out;
}

// One line of the summary: where the path is after `shown` steps, or when it diverged.
export function describe(flat, every, shown, f) {
  const pts = pointsUpTo(flat, every, shown);
  const full = Math.floor(shown / every) + 1;
  if (pts.length < full) return `diverged by step ${pts.length * every}`;
  const [x, y] = pts[pts.length - 1];
  return `f(${x.toFixed(2)}, ${y.toFixed(2)}) = ${fmt(f(x, y))}`;
}

function fmt(v) {
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e4) ? v.toExponential(1) : v.toPrecision(3);
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                 "#bcbd22", "#7f7f7f"];
const SIZE = 210, CELLS = 105;  // three panels side by side fit the book's text column

// The surface as a banded map (a contour plot of asinh(f), twelve bands), drawn once per surface.
function background(name, window) {
  const f = SURFACE_FUNCTIONS[name];
  const [x0, x1, y0, y1] = window;
  const vals = [];
  for (let j = 0; j < CELLS; j++)
    for (let i = 0; i < CELLS; i++)
      vals.push(Math.asinh(f(x0 + (i + 0.5) * (x1 - x0) / CELLS, y1 - (j + 0.5) * (y1 - y0) / CELLS)));
  const lo = Math.min(...vals), hi = Math.max(...vals);
  const c = document.createElement("canvas");
  c.width = c.height = CELLS;
  const ctx = c.getContext("2d");
  const img = ctx.createImageData(CELLS, CELLS);
  vals.forEach((v, k) => {
    const t = (v - lo) / (hi - lo || 1), band = Math.floor(t * 12) / 12;
    const shade = 245 - 150 * band - (Math.floor(t * 12) % 2) * 10;
    img.data.set([shade, shade + 5, 255 - 60 * band, 255], 4 * k);
  });
  ctx.putImageData(img, 0, 0);
  return c;
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-trajectory-explorer");
  const controls = el("div", "ak-controls");
  const rows = el("div", "ak-optimizers");
  const slider = el("input", "ak-shown"); slider.type = "range"; slider.min = "0";
  const sliderText = el("span", "ak-shown-value");
  const play = el("button", "ak-play", "replay");
  const stepsLabel = el("label", "ak-label", "steps ");
  stepsLabel.append(slider, sliderText);
  controls.append(stepsLabel, play);
  const panels = el("div", "ak-grid");
  const summary = el("pre", "ak-summary");
  root.append(rows, controls, panels, summary);

  const surfaces = model.get("surfaces"), optimizers = model.get("optimizers");
  const backgrounds = {};
  const canvases = surfaces.map((s) => {
    const box = el("div", "ak-panel");
    box.style.width = `${SIZE}px`;
    box.appendChild(el("div", "ak-caption", `${s.name}: ${s.formula}`));
    const c = el("canvas", "ak-surface");
    const dpr = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    c.width = c.height = Math.round(SIZE * dpr);
    c.style.width = c.style.height = `${SIZE}px`;
    box.appendChild(c);
    const [x0, x1, y0, y1] = s.window;
    box.appendChild(el("div", "ak-caption", `x in [${x0}, ${x1}], y in [${y0}, ${y1}]`));
    panels.appendChild(box);
    return c;
  });

  // One row per optimizer: a tick box, its colour, a select per hyperparameter.
  const inputs = optimizers.map((o, n) => {
    const row = el("div", "ak-controls ak-optimizer");
    const tick = el("input", "ak-tick"); tick.type = "checkbox"; tick.dataset.name = o.name; tick.style.width = "auto";
    const name = el("label", "ak-label"); name.append(tick, el("span", "", o.name));
    name.style.color = COLOURS[n % COLOURS.length]; name.style.minWidth = "9em";
    row.appendChild(name);
    const selects = o.axes.map(([axis, values], a) => {
      const s = el("select", `ak-axis ak-axis-${axis}`);
      values.forEach((v, i) => { const opt = el("option", "", String(v)); opt.value = String(i); s.appendChild(opt); });
      const l = el("label", "ak-label", `${axis} `); l.appendChild(s); row.appendChild(l);
      s.addEventListener("change", () => {
        const choice = { ...model.get("choice") };
        choice[o.name] = choice[o.name].slice(); choice[o.name][a] = parseInt(s.value, 10);
        model.set("choice", choice); model.save_changes();
      });
      return s;
    });
    tick.addEventListener("change", () => {
      const sel = model.get("selected").filter((x) => x !== o.name);
      if (tick.checked) sel.push(o.name);
      model.set("selected", sel); model.save_changes();
    });
    rows.appendChild(row);
    return { tick, selects };
  });

  function draw() {
    const steps = model.get("steps"), every = model.get("every"), shown = model.get("shown");
    const selected = model.get("selected"), choice = model.get("choice"), paths = model.get("paths");
    slider.max = String(steps); slider.step = String(every); slider.value = String(shown);
    sliderText.textContent = String(shown);
    optimizers.forEach((o, n) => {
      inputs[n].tick.checked = selected.includes(o.name);
      inputs[n].selects.forEach((s, a) => { s.value = String(choice[o.name][a]); });
    });
    const lines = new Map();  // optimizer -> [its settings, one part per surface]
    surfaces.forEach((s, k) => {
      const c = canvases[k], ctx = c.getContext("2d");
      const [x0, x1, y0, y1] = s.window;
      const px = (x) => (x - x0) / (x1 - x0) * c.width, py = (y) => (y1 - y) / (y1 - y0) * c.height;
      backgrounds[s.name] = backgrounds[s.name] || background(s.name, s.window);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(backgrounds[s.name], 0, 0, c.width, c.height);
      const r = c.width / 100;
      if (s.minimum) {
        ctx.strokeStyle = "#000"; ctx.lineWidth = r / 2;
        const [mx, my] = [px(s.minimum[0]), py(s.minimum[1])];
        ctx.beginPath(); ctx.moveTo(mx - 2 * r, my - 2 * r); ctx.lineTo(mx + 2 * r, my + 2 * r);
        ctx.moveTo(mx - 2 * r, my + 2 * r); ctx.lineTo(mx + 2 * r, my - 2 * r); ctx.stroke();
      }
      ctx.fillStyle = "#000";
      ctx.beginPath(); ctx.arc(px(s.start[0]), py(s.start[1]), 1.5 * r, 0, 2 * Math.PI); ctx.fill();
      optimizers.forEach((o, n) => {
        if (!selected.includes(o.name)) return;
        const flat = paths[s.name][o.name][settingIndex(o.axes, choice[o.name])];
        const pts = pointsUpTo(flat, every, shown);
        ctx.strokeStyle = ctx.fillStyle = COLOURS[n % COLOURS.length]; ctx.lineWidth = r / 1.5;
        ctx.beginPath();
        pts.forEach(([x, y], i) => (i ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y))));
        ctx.stroke();
        const [lx, ly] = pts[pts.length - 1];
        ctx.beginPath(); ctx.arc(px(lx), py(ly), 1.2 * r, 0, 2 * Math.PI); ctx.fill();
        if (!lines.has(o.name)) {
          const opts = o.axes.map(([axis, values], a) => `${axis}=${values[choice[o.name][a]]}`).join(", ");
          lines.set(o.name, [`${o.name} (${opts})`, []]);
        }
        lines.get(o.name)[1].push(`${s.name}: ${describe(flat, every, shown, SURFACE_FUNCTIONS[s.name])}`);
      });
    });
    summary.textContent = lines.size
      ? `after ${shown} steps:\n` + [...lines.values()].map(([label, parts]) => `${label}\n    ${parts.join("\n    ")}`).join("\n")
      : "tick an optimizer to see its paths";
  }

  let timer = null;
  slider.addEventListener("input", () => { model.set("shown", parseInt(slider.value, 10)); model.save_changes(); });
  play.addEventListener("click", () => {
    if (timer) clearInterval(timer);
    const steps = model.get("steps"), every = model.get("every");
    let at = 0;
    timer = setInterval(() => {
      at = Math.min(steps, at + every);
      model.set("shown", at);
      if (at >= steps) { clearInterval(timer); timer = null; model.save_changes(); }
    }, 30);
  });
  for (const name of ["shown", "selected", "choice", "paths"]) model.on(`change:${name}`, draw);
  draw();
}

export default { render };
