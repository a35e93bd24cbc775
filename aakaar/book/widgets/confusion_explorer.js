// Confusion explorer: a heat map of the confusion matrix (each row divided by its class's count)
// drawn on a canvas; hovering names a cell, clicking shows the samples kept for it. The counts and
// the samples come from Python; everything here is drawing, so it works in the static book.

// Each row of `counts` divided by its sum (a row with no samples stays all zeros).
export function rowNormalise(counts) {
  return counts.map((row) => {
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((v) => (total ? v / total : 0));
  });
}

// The k largest off-diagonal cells as [true, predicted, count], largest first (ties: row-major order).
export function topConfusions(counts, k) {
  const cells = [];
  counts.forEach((row, t) => row.forEach((v, p) => { if (t !== p && v > 0) cells.push([t, p, v]); }));
  cells.sort((a, b) => b[2] - a[2] || a[0] - b[0] || a[1] - b[1]);
  return cells.slice(0, k);
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const CELL = 9; // pixels per matrix cell
const MARGIN = 14; // room for the axis letters

// The 784 bytes of a 28 x 28 image sent as base64.
export function decodeImage(b64) {
  const raw = atob(b64);
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
}

function drawImage(pixels) {
  const c = el("canvas", "ak-glyph");
  c.width = 28; c.height = 28;
  c.style.width = "42px"; c.style.height = "42px"; c.style.imageRendering = "pixelated";
  const ctx = c.getContext("2d");
  const img = ctx.createImageData(28, 28);
  for (let i = 0; i < 784; i++) {
    const v = 255 - pixels[i];
    img.data[4 * i] = img.data[4 * i + 1] = img.data[4 * i + 2] = v;
    img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return c;
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-confusion-explorer");
  const classes = model.get("classes");
  const n = classes.length;
  const canvas = el("canvas", "ak-confusion");
  canvas.width = MARGIN + n * CELL; canvas.height = MARGIN + n * CELL;
  const info = el("pre", "ak-summary", "hover a cell; click one to see its samples");
  const top = el("div", "ak-controls");
  const gallery = el("div", "ak-grid");
  const side = el("div");
  side.append(info, top, gallery);
  const layout = el("div", "ak-grid");
  layout.append(canvas, side);
  root.append(layout);

  const counts = model.get("counts");
  const norm = rowNormalise(counts);
  const ctx = canvas.getContext("2d");
  function drawMatrix() {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.font = "8px monospace"; ctx.fillStyle = "#555"; ctx.textAlign = "center";
    for (let i = 0; i < n; i++) {
      ctx.fillText(classes[i], MARGIN + i * CELL + CELL / 2, 10);
      ctx.fillText(classes[i], 6, MARGIN + i * CELL + CELL - 1);
    }
    const [st, sp] = model.get("selected");
    for (let t = 0; t < n; t++) {
      for (let p = 0; p < n; p++) {
        // sqrt brightens the small off-diagonal shares next to the near-1 diagonal
        const shade = Math.round(255 * (1 - Math.sqrt(norm[t][p])));
        ctx.fillStyle = t === p ? `rgb(${shade},${shade},255)` : `rgb(255,${shade},${shade})`;
        ctx.fillRect(MARGIN + p * CELL, MARGIN + t * CELL, CELL - 1, CELL - 1);
      }
    }
    if (st !== undefined) {
      ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5;
      ctx.strokeRect(MARGIN + sp * CELL - 0.5, MARGIN + st * CELL - 0.5, CELL, CELL);
    }
  }
  function cellAt(ev) {
    const r = canvas.getBoundingClientRect();
    const x = (ev.clientX - r.left) * (canvas.width / r.width) - MARGIN;
    const y = (ev.clientY - r.top) * (canvas.height / r.height) - MARGIN;
    const p = Math.floor(x / CELL), t = Math.floor(y / CELL);
    return t >= 0 && p >= 0 && t < n && p < n ? [t, p] : null;
  }
  function describe(t, p) {
    const share = (100 * norm[t][p]).toFixed(1);
    return t === p
      ? `'${classes[t]}' read correctly: ${counts[t][p]} samples (${share}% of its row)`
      : `'${classes[t]}' read as '${classes[p]}': ${counts[t][p]} samples (${share}% of the '${classes[t]}'s)`;
  }
  function showSelected() {
    const [t, p] = model.get("selected");
    gallery.replaceChildren();
    if (t === undefined) return;
    info.textContent = describe(t, p);
    const kept = model.get("examples")[`${t},${p}`];
    if (t === p) gallery.appendChild(el("span", "ak-caption", "the diagonal: correct answers (no samples kept)"));
    else if (!kept) gallery.appendChild(el("span", "ak-caption", "no samples kept for this cell (only the most frequent confusions are)"));
    else kept.forEach((b64) => gallery.appendChild(drawImage(decodeImage(b64))));
    drawMatrix();
  }
  top.appendChild(el("span", "ak-caption", "most frequent: "));
  topConfusions(counts, 8).forEach(([t, p, v]) => {
    const b = el("button", "ak-top", `${classes[t]}→${classes[p]} (${v})`);
    b.onclick = () => { model.set("selected", [t, p]); model.save_changes(); };
    top.appendChild(b);
  });
  canvas.addEventListener("mousemove", (ev) => { const c = cellAt(ev); if (c) info.textContent = describe(...c); });
  canvas.addEventListener("click", (ev) => { const c = cellAt(ev); if (c) { model.set("selected", c); model.save_changes(); } });
  model.on("change:selected", showSelected);
  drawMatrix();
  showSelected();
}

export default { render };
