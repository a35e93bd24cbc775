// Broadcasting visualiser: the broadcast rule and the stride-0 trick, computed in the browser so the
// widget responds in the static book. Python only holds shape_a and shape_b.

const MAX_CELLS = 144;  // result panels larger than 12x12 are summarised, not drawn

function parseShape(text, what) {
  const t = text.trim().replace(/^[\[(]|[\])]$/g, "");
  if (t === "") return [];
  return t.split(/[\s,]+/).filter((s) => s !== "").map((s) => {
    if (!/^\d+$/.test(s)) throw new Error(`${what}: "${s}" is not a size (a whole number >= 0)`);
    return parseInt(s, 10);
  });
}
const fmt = (xs) => (xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(", ")})`);
const prod = (xs) => xs.reduce((a, b) => a * b, 1);

// Align shapes on the right; each dimension must be equal or 1. Returns {shape} or {error}.
export function broadcastShapes(a, b) {
  const n = Math.max(a.length, b.length);
  const out = new Array(n);
  for (let i = 1; i <= n; i++) {
    const x = i <= a.length ? a[a.length - i] : 1;
    const y = i <= b.length ? b[b.length - i] : 1;
    if (x !== y && x !== 1 && y !== 1) {
      return { error: `dimension ${-i}: ${x} and ${y} differ and neither is 1` };
    }
    out[n - i] = x === 1 ? y : x;
  }
  return { shape: out };
}

// Strides that make a contiguous tensor of `shape` look like `target`: 0 where it is stretched.
export function broadcastStrides(shape, target) {
  const out = new Array(target.length).fill(0);
  let acc = 1;
  for (let i = 1; i <= shape.length; i++) {
    const d = shape.length - i;
    out[target.length - i] = shape[d] === 1 ? 0 : acc;
    acc *= Math.max(shape[d], 1);
  }
  return out;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-broadcast-visualiser");
  const controls = el("div", "ak-controls");
  const mk = (label, cls) => {
    const lab = el("label", "ak-label", label);
    const inp = el("input", cls); inp.type = "text"; inp.spellcheck = false;
    lab.appendChild(inp); controls.appendChild(lab); return inp;
  };
  const aIn = mk("a.shape ", "ak-shape-a");
  const bIn = mk("b.shape ", "ak-shape-b");
  const summary = el("pre", "ak-summary");
  const table = el("div", "ak-align");
  const panels = el("div", "ak-grid");
  const formula = el("div", "ak-formula", "hover a result element to see which elements of a and b it reads");
  root.append(controls, summary, table, panels, formula);

  function draw() {
    table.replaceChildren(); panels.replaceChildren();
    const a = model.get("shape_a"), b = model.get("shape_b");
    aIn.value = a.join(", "); bIn.value = b.join(", ");
    const r = broadcastShapes(a, b);
    const n = Math.max(a.length, b.length);

    // The alignment table: shapes right-aligned, each column coloured by what the rule did.
    table.style.gridTemplateColumns = `auto repeat(${n}, 3.2em)`;
    const row = (name, shape, role) => {
      table.appendChild(el("span", "ak-rowname", name));
      for (let j = 0; j < n; j++) {
        const d = j - (n - shape.length);
        if (d < 0) { table.appendChild(el("span", "ak-cell ak-missing", "·")); continue; }
        const c = el("span", "ak-cell", String(shape[d]));
        if (role !== "out" && r.shape && shape[d] === 1 && r.shape[j] !== 1) c.classList.add("ak-stretched");
        else if (role !== "out" && !r.shape && (() => {
          const x = j - (n - a.length) >= 0 ? a[j - (n - a.length)] : 1;
          const y = j - (n - b.length) >= 0 ? b[j - (n - b.length)] : 1;
          return x !== y && x !== 1 && y !== 1;
        })()) c.classList.add("ak-oob");
        else c.classList.add("ak-used");
        table.appendChild(c);
      }
    };
    row("a", a, "in"); row("b", b, "in");
    if (r.error) {
      summary.textContent = `a ${fmt(a)} and b ${fmt(b)} cannot broadcast: ${r.error}`;
      summary.classList.add("ak-error");
      return;
    }
    summary.classList.remove("ak-error");
    row("a + b", r.shape, "out");
    const sa = broadcastStrides(a, r.shape), sb = broadcastStrides(b, r.shape);
    summary.textContent = [
      `result shape ${fmt(r.shape)}  (${prod(r.shape)} elements)`,
      `a expanded: strides ${fmt(sa)}   b expanded: strides ${fmt(sb)}`,
      "stride 0: that dimension of the operand is re-read, never copied",
    ].join("\n");

    // Panels for the last two result dims (leading index 0): which a- and b-element each result reads.
    const nd = r.shape.length;
    const cols = nd >= 1 ? r.shape[nd - 1] : 1, rows = nd >= 2 ? r.shape[nd - 2] : 1;
    if (rows * cols > MAX_CELLS) {
      panels.appendChild(el("div", "ak-caption", `the last two dimensions hold ${rows * cols} elements: too many to draw`));
      return;
    }
    const lead = new Array(Math.max(nd - 2, 0)).fill(0);
    const flat = (strides, i, j) => {
      const idx = [...lead, ...(nd >= 2 ? [i] : []), ...(nd >= 1 ? [j] : [])];
      return idx.reduce((acc, x, d) => acc + x * strides[d], 0);
    };
    const mkPanel = (title) => {
      const p = el("div", "ak-panel"); p.appendChild(el("div", "ak-caption", title));
      const t = el("div", "ak-table"); t.style.gridTemplateColumns = `repeat(${cols}, auto)`;
      p.appendChild(t); panels.appendChild(p); return t;
    };
    const title = nd > 2 ? `[${lead.join(", ")}, :, :]` : "";
    const ta = mkPanel(`a, read as ${fmt(r.shape)} ${title}`);
    const tb = mkPanel(`b, read as ${fmt(r.shape)} ${title}`);
    const tr = mkPanel(`a + b ${title}`);
    const cellsA = new Map(), cellsB = new Map();
    const firstSeenA = new Set(), firstSeenB = new Set();
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const fa = flat(sa, i, j), fb = flat(sb, i, j);
        const ca = el("span", firstSeenA.has(fa) ? "ak-cell ak-shared" : "ak-cell ak-used", `a${fa}`);
        const cb = el("span", firstSeenB.has(fb) ? "ak-cell ak-shared" : "ak-cell ak-used", `b${fb}`);
        firstSeenA.add(fa); firstSeenB.add(fb);
        const cr = el("span", "ak-cell", `${i},${j}`);
        ta.appendChild(ca); tb.appendChild(cb); tr.appendChild(cr);
        const key = `${i},${j}`; cellsA.set(key, ca); cellsB.set(key, cb);
        cr.addEventListener("mouseenter", () => {
          formula.textContent = `out[..., ${i}, ${j}] = a.storage[${fa}] + b.storage[${fb}]`;
          ca.classList.add("ak-hot"); cb.classList.add("ak-hot");
        });
        cr.addEventListener("mouseleave", () => { ca.classList.remove("ak-hot"); cb.classList.remove("ak-hot"); });
      }
    }
  }

  const onText = (input, key, what) => input.addEventListener("change", () => {
    try {
      model.set(key, parseShape(input.value, what)); model.save_changes(); input.classList.remove("ak-bad");
    } catch (e) {
      input.classList.add("ak-bad"); summary.textContent = `error: ${e.message}`; summary.classList.add("ak-error");
    }
  });
  onText(aIn, "shape_a", "a.shape"); onText(bIn, "shape_b", "b.shape");
  model.on("change:shape_a", draw); model.on("change:shape_b", draw);
  draw();
  return () => { model.off("change:shape_a", draw); model.off("change:shape_b", draw); };
}

export default { render };
