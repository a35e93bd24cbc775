// Conv explorer: a 3x3 kernel's window over a 28x28 character, the nine products under it and their
// sum, and the whole feature map, after ReLU and after 2x2 max pooling. Image and kernels come from
// Python; the convolution is computed here, so the widget responds in the static book.

// The 784 bytes of a 28 x 28 image sent as base64, scaled to [0, 1].
export function decodeImage(b64) {
  const raw = atob(b64);
  return Float64Array.from(raw, (ch) => ch.charCodeAt(0) / 255);
}

// out[i][j] = sum over p, q of x[i + p - 1][j + q - 1] k[p][q], zero outside the image: F.conv2d with
// padding 1 (a cross-correlation: the kernel is not flipped). x is flat, h x w.
export function conv3x3(x, h, w, k) {
  const out = [];
  for (let i = 0; i < h; i++) {
    const row = [];
    for (let j = 0; j < w; j++) row.push(windowProducts(x, h, w, k, i, j).reduce((a, b) => a + b, 0));
    out.push(row);
  }
  return out;
}

// The nine products x[i + p - 1][j + q - 1] k[p][q] of the window centred at (i, j), row by row.
export function windowProducts(x, h, w, k, i, j) {
  const out = [];
  for (let p = 0; p < 3; p++) {
    for (let q = 0; q < 3; q++) {
      const r = i + p - 1, c = j + q - 1;
      out.push(r >= 0 && r < h && c >= 0 && c < w ? x[r * w + c] * k[p][q] : 0);
    }
  }
  return out;
}

export function relu(map) {
  return map.map((row) => row.map((v) => Math.max(v, 0)));
}

// 2x2 max pooling with stride 2 (F.max_pool2d(x, 2)): a trailing odd row or column is dropped.
export function maxPool2(map) {
  const out = [];
  for (let i = 0; i + 1 < map.length; i += 2) {
    const row = [];
    for (let j = 0; j + 1 < map[i].length; j += 2) {
      row.push(Math.max(map[i][j], map[i][j + 1], map[i + 1][j], map[i + 1][j + 1]));
    }
    out.push(row);
  }
  return out;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const SCALE = 6; // screen pixels per image pixel

// A map drawn on a canvas: grey for images (0 white, 1 black), red-blue for signed maps.
function drawMap(canvas, map, signed, mark) {
  const h = map.length, w = map[0].length;
  canvas.width = w * SCALE; canvas.height = h * SCALE;
  const ctx = canvas.getContext("2d");
  let top = 1e-12;
  map.forEach((row) => row.forEach((v) => { top = Math.max(top, Math.abs(v)); }));
  for (let i = 0; i < h; i++) {
    for (let j = 0; j < w; j++) {
      const v = map[i][j] / (signed ? top : 1);
      const s = Math.round(255 * (1 - Math.min(Math.abs(v), 1)));
      ctx.fillStyle = !signed ? `rgb(${s},${s},${s})` : v >= 0 ? `rgb(${s},${s},255)` : `rgb(255,${s},${s})`;
      ctx.fillRect(j * SCALE, i * SCALE, SCALE, SCALE);
    }
  }
  if (mark) {
    const [i, j, size] = mark;
    ctx.strokeStyle = "#e33"; ctx.lineWidth = 2;
    ctx.strokeRect((j - (size - 1) / 2) * SCALE, (i - (size - 1) / 2) * SCALE, size * SCALE, size * SCALE);
  }
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-conv-explorer");
  const controls = el("div", "ak-controls");
  const pick = el("select", "ak-kernel");
  const row = el("input", "ak-row"); row.type = "range"; row.min = "0"; row.max = "27";
  const col = el("input", "ak-col"); col.type = "range"; col.min = "0"; col.max = "27";
  const play = el("button", "ak-play", "slide");
  const label = (text, input) => { const l = el("label", "ak-label", text); l.appendChild(input); return l; };
  controls.append(label("kernel ", pick), label(" row ", row), label(" column ", col), play);
  const panels = el("div", "ak-grid");
  const panel = (title) => {
    const box = el("div"); const c = el("canvas", "ak-map");
    box.append(el("div", "ak-caption", title), c); panels.appendChild(box); return c;
  };
  const imgCanvas = panel("input (28x28)");
  const mapCanvas = panel("feature map (28x28, padding 1)");
  const reluCanvas = panel("after ReLU");
  const poolCanvas = panel("after 2x2 max pooling (14x14)");
  const sum = el("pre", "ak-summary");
  root.append(controls, el("div", "ak-caption", model.get("caption")), panels, sum);

  const x = decodeImage(model.get("image"));
  const image = Array.from({ length: 28 }, (_, i) => Array.from(x.slice(i * 28, i * 28 + 28)));
  let timer = null;

  function draw() {
    const kernels = model.get("kernels"), name = model.get("kernel"), k = kernels[name];
    if (pick.options.length !== Object.keys(kernels).length) {
      pick.replaceChildren(...Object.keys(kernels).map((n) => { const o = el("option", "", n); o.value = n; return o; }));
    }
    pick.value = name;
    const [i, j] = model.get("position");
    row.value = String(i); col.value = String(j);
    const map = conv3x3(x, 28, 28, k);
    const rel = relu(map);
    drawMap(imgCanvas, image, false, [i, j, 3]);
    drawMap(mapCanvas, map, true, [i, j, 1]);
    drawMap(reluCanvas, rel, true, [i, j, 1]);
    drawMap(poolCanvas, maxPool2(rel), true, [Math.floor(i / 2), Math.floor(j / 2), 1]);
    const prods = windowProducts(x, 28, 28, k, i, j);
    const lines = [0, 1, 2].map((p) => [0, 1, 2].map((q) => {
      const r = i + p - 1, c = j + q - 1;
      const px = r >= 0 && r < 28 && c >= 0 && c < 28 ? x[r * 28 + c] : 0;
      return `${px.toFixed(2)}×${(+k[p][q].toFixed(2)).toString().padStart(5)}`;
    }).join("  "));
    sum.textContent = `window centred at row ${i}, column ${j} (pixels outside the image are the padding's 0):\n` +
      lines.join("\n") + `\nsum of the nine products = out[${i}][${j}] = ${map[i][j].toFixed(3)}` +
      `;  after ReLU ${rel[i][j].toFixed(3)}`;
  }
  function setPos(i, j) { model.set("position", [i, j]); model.save_changes(); }
  pick.addEventListener("change", () => { model.set("kernel", pick.value); model.save_changes(); });
  row.addEventListener("input", () => setPos(parseInt(row.value, 10), model.get("position")[1]));
  col.addEventListener("input", () => setPos(model.get("position")[0], parseInt(col.value, 10)));
  for (const c of [imgCanvas, mapCanvas, reluCanvas]) {
    c.addEventListener("mousemove", (ev) => {
      const r = c.getBoundingClientRect();
      const j = Math.floor((ev.clientX - r.left) * (c.width / r.width) / SCALE);
      const i = Math.floor((ev.clientY - r.top) * (c.height / r.height) / SCALE);
      if (i >= 0 && i < 28 && j >= 0 && j < 28) setPos(i, j);
    });
  }
  play.onclick = () => {  // slide the window along the rows, as the loops of a convolution do
    if (timer) { clearInterval(timer); timer = null; play.textContent = "slide"; return; }
    play.textContent = "stop";
    timer = setInterval(() => {
      const [i, j] = model.get("position");
      const next = j < 27 ? [i, j + 1] : [(i + 1) % 28, 0];
      setPos(...next);
    }, 40);
  };
  model.on("change:position", draw);
  model.on("change:kernel", draw);
  draw();
}

export default { render };
