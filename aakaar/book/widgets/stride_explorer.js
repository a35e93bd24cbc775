// Stride / memory explorer: all index arithmetic lives here, in the browser, so the widget keeps
// working in the static book where no Python kernel exists. Python only holds the state
// (shape, strides, offset, storage_size, view_op); this module reads it, draws, and writes back.

const MAX_ELEMENTS = 512;   // beyond this the grid is unreadable anyway
const MAX_STORAGE = 1024;

function parseInts(text, what) {
  const t = text.trim().replace(/^[\[(]|[\])]$/g, "");
  if (t === "") return [];
  return t.split(/[\s,]+/).filter((s) => s !== "").map((s) => {
    if (!/^-?\d+$/.test(s)) throw new Error(`${what}: "${s}" is not a whole number`);
    return parseInt(s, 10);
  });
}

const prod = (xs) => xs.reduce((a, b) => a * b, 1);
const fmt = (xs) => (xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(", ")})`);

// Row-major strides: the last dimension moves fastest (mirrors contiguous_strides in tensor.cpp).
export function contiguousStrides(shape) {
  const s = new Array(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) { s[d] = acc; acc *= Math.max(shape[d], 1); }
  return s;
}

// A tensor is contiguous when walking it in row-major order visits storage one step at a time;
// dimensions of size 1 never move, so their stride does not matter.
export function isContiguous(shape, strides) {
  if (prod(shape) === 0) return true;
  let expected = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] === 1) continue;
    if (strides[d] !== expected) return false;
    expected *= shape[d];
  }
  return true;
}

// Strides for viewing (shape, strides) as newShape without copying, or null when impossible.
// Same algorithm as PyTorch's computeStride: split the old dims into chunks that are contiguous
// with each other; every new dim must fit inside one chunk.
export function viewStrides(shape, strides, newShape) {
  if (prod(shape) !== prod(newShape)) return null;
  if (shape.length === 0 || prod(shape) === 0) return contiguousStrides(newShape);
  const out = new Array(newShape.length);
  let viewD = newShape.length - 1;
  let chunkBase = strides[strides.length - 1];
  let tensorNumel = 1, viewNumel = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    tensorNumel *= shape[d];
    if (d === 0 || (shape[d - 1] !== 1 && strides[d - 1] !== tensorNumel * chunkBase)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] === 1)) {
        out[viewD] = viewNumel * chunkBase;
        viewNumel *= newShape[viewD];
        viewD--;
      }
      if (viewNumel !== tensorNumel) return null;
      if (d > 0) { chunkBase = strides[d - 1]; tensorNumel = 1; viewNumel = 1; }
    }
  }
  return viewD === -1 ? out : null;
}

// The view operations a reader can apply; each returns {shape, strides, offset, note}.
export const VIEW_OPS = {
  none: { label: "t (as is)", apply: (v) => ({ ...v, note: "" }) },
  transpose: {
    label: "t.transpose(-2, -1)",
    apply: (v) => {
      const n = v.shape.length;
      if (n < 2) return { ...v, note: "a 1-d tensor has nothing to swap" };
      const sh = v.shape.slice(), st = v.strides.slice();
      [sh[n - 2], sh[n - 1]] = [sh[n - 1], sh[n - 2]];
      [st[n - 2], st[n - 1]] = [st[n - 1], st[n - 2]];
      return { shape: sh, strides: st, offset: v.offset, note: "swapped the last two shape entries and strides; no data moved" };
    },
  },
  step: {
    label: "t[..., ::2]",
    apply: (v) => {
      const n = v.shape.length;
      if (n < 1) return { ...v, note: "a 0-d tensor cannot be sliced" };
      const sh = v.shape.slice(), st = v.strides.slice();
      sh[n - 1] = Math.ceil(sh[n - 1] / 2);
      st[n - 1] *= 2;
      return { shape: sh, strides: st, offset: v.offset, note: "a step of 2 doubles the last stride" };
    },
  },
  select: {
    label: "t[1]",
    apply: (v) => {
      if (v.shape.length < 1 || v.shape[0] < 2) return { ...v, note: "t[1] needs a first dimension of size at least 2" };
      return { shape: v.shape.slice(1), strides: v.strides.slice(1), offset: v.offset + v.strides[0],
               note: "indexing drops dim 0 and moves the offset by one stride" };
    },
  },
  expand: {
    label: "t.unsqueeze(0).expand(2, ...)",
    apply: (v) => ({ shape: [2, ...v.shape], strides: [0, ...v.strides], offset: v.offset,
                     note: "stride 0: both copies read the same storage cells" }),
  },
  flatten: {
    label: "t.view(-1)",
    apply: (v) => {
      const n = prod(v.shape);
      const st = viewStrides(v.shape, v.strides, [n]);
      if (st === null) return { ...v, error: "view(-1) is impossible for these strides: reshape(-1) would have to copy" };
      return { shape: [n], strides: st, offset: v.offset, note: "the dimensions chain together, so one stride walks them all" };
    },
  },
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Multi-index of the k-th element in row-major order.
function unravel(k, shape) {
  const idx = new Array(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) { idx[d] = k % shape[d]; k = Math.floor(k / shape[d]); }
  return idx;
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-stride-explorer");
  const controls = el("div", "ak-controls");
  const mkInput = (label, cls, title) => {
    const lab = el("label", "ak-label", label);
    const inp = el("input", cls);
    inp.type = "text"; inp.title = title; inp.spellcheck = false;
    lab.appendChild(inp); controls.appendChild(lab);
    return inp;
  };
  const shapeIn = mkInput("shape ", "ak-shape", "sizes, e.g. 3, 4 (changing it resets strides to row-major)");
  const stridesIn = mkInput("strides ", "ak-strides", "one stride per dimension, in elements");
  const offsetIn = mkInput("offset ", "ak-offset", "storage index of element [0, 0, ...]");
  const storageIn = mkInput("storage size ", "ak-storage-size", "number of cells in the flat buffer");
  const opLab = el("label", "ak-label", "view ");
  const opSel = el("select", "ak-op");
  for (const [key, op] of Object.entries(VIEW_OPS)) {
    const o = el("option", "", op.label); o.value = key; opSel.appendChild(o);
  }
  opLab.appendChild(opSel); controls.appendChild(opLab);
  const resetBtn = el("button", "ak-reset", "row-major strides");
  controls.appendChild(resetBtn);

  const summary = el("pre", "ak-summary");
  const storageBox = el("div", "ak-storage");
  const gridBox = el("div", "ak-grid");
  const formula = el("div", "ak-formula", "hover an element to see its address");
  root.append(controls, summary, el("div", "ak-caption", "storage (flat buffer)"), storageBox,
              el("div", "ak-caption", "the view, element by element (each shows the storage cell it reads)"),
              gridBox, formula);

  function syncInputs() {
    shapeIn.value = model.get("shape").join(", ");
    stridesIn.value = model.get("strides").join(", ");
    offsetIn.value = String(model.get("offset"));
    storageIn.value = String(model.get("storage_size"));
    opSel.value = model.get("view_op");
  }

  function draw() {
    storageBox.replaceChildren(); gridBox.replaceChildren();
    formula.textContent = "hover an element to see its address";
    const base = { shape: model.get("shape"), strides: model.get("strides"), offset: model.get("offset") };
    const storageSize = model.get("storage_size");
    const op = VIEW_OPS[model.get("view_op")] || VIEW_OPS.none;
    const lines = [];
    if (base.strides.length !== base.shape.length) {
      summary.textContent = `error: strides need ${base.shape.length} numbers (one per dimension), got ${base.strides.length}`;
      summary.classList.add("ak-error");
      return;
    }
    if (base.shape.some((s) => s < 0) || base.strides.some((s) => s < 0) || base.offset < 0) {
      summary.textContent = "error: sizes, strides and offset must be >= 0";
      summary.classList.add("ak-error");
      return;
    }
    const v = op.apply(base);
    const numel = prod(v.shape);
    if (numel > MAX_ELEMENTS || storageSize > MAX_STORAGE) {
      summary.textContent = `too large to draw (at most ${MAX_ELEMENTS} elements and ${MAX_STORAGE} storage cells)`;
      summary.classList.add("ak-error");
      return;
    }
    summary.classList.toggle("ak-error", Boolean(v.error));
    lines.push(`base   shape ${fmt(base.shape)}  strides ${fmt(base.strides)}  offset ${base.offset}`);
    if (v.error) {
      lines.push(`view   ${op.label}: ${v.error}`);
    } else {
      lines.push(`view   ${op.label} -> shape ${fmt(v.shape)}  strides ${fmt(v.strides)}  offset ${v.offset}`);
      if (v.note) lines.push(`       (${v.note})`);
      const contig = isContiguous(v.shape, v.strides);
      lines.push(`is_contiguous(): ${contig ? "True" : "False"}   contiguous() would ${contig ? "return the same tensor (no copy)" : `copy ${numel} elements`}`);
    }
    const shown = v.error ? base : v;

    // Which storage cells does the view read, and how often?
    const reads = new Array(storageSize).fill(0);
    const addrs = [];
    let outOfBounds = 0;
    for (let k = 0; k < prod(shown.shape); k++) {
      const idx = unravel(k, shown.shape);
      const a = shown.offset + idx.reduce((acc, i, d) => acc + i * shown.strides[d], 0);
      addrs.push({ idx, a });
      if (a < storageSize) reads[a] += 1; else outOfBounds += 1;
    }
    if (outOfBounds) lines.push(`${outOfBounds} element(s) fall outside the storage: the library rejects such a view`);
    summary.textContent = lines.join("\n");

    const cells = [];
    for (let i = 0; i < storageSize; i++) {
      const c = el("span", "ak-cell", String(i));
      if (reads[i] > 1) c.classList.add("ak-shared");
      else if (reads[i] === 1) c.classList.add("ak-used");
      c.title = `storage[${i}] read ${reads[i]} time(s)`;
      storageBox.appendChild(c); cells.push(c);
    }

    // Draw the view as 2-d panels: the last dimension across, the one before it down,
    // and one panel per index of the leading dimensions.
    const nd = shown.shape.length;
    const cols = nd >= 1 ? shown.shape[nd - 1] : 1;
    const rows = nd >= 2 ? shown.shape[nd - 2] : 1;
    const perPanel = Math.max(rows * cols, 1);
    let panel = null, table = null;
    addrs.forEach(({ idx, a }, k) => {
      if (k % perPanel === 0) {
        panel = el("div", "ak-panel");
        if (nd > 2) panel.appendChild(el("div", "ak-caption", `[${idx.slice(0, nd - 2).join(", ")}, :, :]`));
        table = el("div", "ak-table");
        table.style.gridTemplateColumns = `repeat(${cols}, auto)`;
        panel.appendChild(table); gridBox.appendChild(panel);
      }
      const bad = a >= storageSize;
      const c = el("span", bad ? "ak-cell ak-oob" : "ak-cell ak-used", bad ? "x" : String(a));
      const terms = idx.map((i, d) => `${i}*${shown.strides[d]}`).join(" + ");
      const text = `t[${idx.join(", ")}] -> storage[${shown.offset}${terms ? " + " + terms : ""}] = storage[${a}]${bad ? "  (out of bounds!)" : ""}`;
      c.addEventListener("mouseenter", () => { formula.textContent = text; if (!bad) cells[a].classList.add("ak-hot"); });
      c.addEventListener("mouseleave", () => { if (!bad) cells[a].classList.remove("ak-hot"); });
      table.appendChild(c);
    });
  }

  function commit(update) {
    for (const [k, val] of Object.entries(update)) model.set(k, val);
    model.save_changes();
  }
  function onText(input, handler) {
    input.addEventListener("change", () => {
      try { handler(input.value); input.classList.remove("ak-bad"); }
      catch (e) { input.classList.add("ak-bad"); summary.textContent = `error: ${e.message}`; summary.classList.add("ak-error"); }
    });
  }
  onText(shapeIn, (t) => {
    const shape = parseInts(t, "shape");
    if (shape.some((s) => s < 0)) throw new Error("shape: sizes must be >= 0");
    commit({ shape, strides: contiguousStrides(shape), offset: 0, storage_size: Math.max(prod(shape), 1) });
  });
  onText(stridesIn, (t) => commit({ strides: parseInts(t, "strides") }));
  onText(offsetIn, (t) => {
    const o = parseInts(t, "offset");
    if (o.length !== 1) throw new Error("offset: give one whole number");
    commit({ offset: o[0] });
  });
  onText(storageIn, (t) => {
    const n = parseInts(t, "storage size");
    if (n.length !== 1 || n[0] < 1) throw new Error("storage size: give one number >= 1");
    commit({ storage_size: n[0] });
  });
  opSel.addEventListener("change", () => commit({ view_op: opSel.value }));
  resetBtn.addEventListener("click", () => commit({ strides: contiguousStrides(model.get("shape")), offset: 0 }));

  const redraw = () => { syncInputs(); draw(); };
  for (const k of ["shape", "strides", "offset", "storage_size", "view_op"]) model.on(`change:${k}`, redraw);
  redraw();
  return () => { for (const k of ["shape", "strides", "offset", "storage_size", "view_op"]) model.off(`change:${k}`, redraw); };
}

export default { render };
