// Launch explorer: a 1-D launch's index arithmetic (blockIdx, threadIdx -> global index) and which
// 32-byte memory sectors each warp touches when thread i reads element i * stride. Computed in the
// browser so the widget responds in the static book; Python only holds n, block, stride, warp.

const WARP = 32;
// Bytes: the unit global memory is fetched in — a 32-byte sector (a 128-byte cache line holds four,
// but only the sectors a warp touches are moved). Chapters 7 and 8 use this one model.
const SEGMENT = 32;
const MAX_DRAWN = 512; // threads drawn; larger launches are summarised

// Grid size and the thread -> element map of `blocks = ceil(n / block)` blocks of `block` threads.
export function launchLayout(n, block) {
  if (!(Number.isInteger(n) && n >= 1)) return { error: "n must be a whole number >= 1" };
  if (!(Number.isInteger(block) && block >= 1 && block <= 1024)) return { error: "blockDim.x must be 1 to 1024" };
  const grid = Math.ceil(n / block);
  return { grid, threads: grid * block, idle: grid * block - n };
}

// Warp `warp` of the launch (warp % warpsPerBlock of block floor(warp / warpsPerBlock); a warp never
// spans two blocks) reads element i * stride of `elemBytes`-byte elements with each active thread:
// the distinct 32-byte sectors it touches, and the share of the fetched bytes it uses.
export function warpSegments(warp, block, n, stride, elemBytes) {
  const warpsPerBlock = Math.ceil(block / WARP);
  const b = Math.floor(warp / warpsPerBlock), first = (warp % warpsPerBlock) * WARP;
  const segs = new Set();
  let active = 0;
  for (let lane = 0; lane < WARP && first + lane < block; lane++) {
    const i = b * block + first + lane;           // the launch index arithmetic
    if (i >= n) continue;                         // idle: the kernel's `if (i >= n) return;`
    active++;
    const byte = i * stride * elemBytes;
    for (let s = Math.floor(byte / SEGMENT); s <= Math.floor((byte + elemBytes - 1) / SEGMENT); s++) segs.add(s);
  }
  const fetched = segs.size * SEGMENT;
  return { block: b, first, active, segments: [...segs].sort((x, y) => x - y),
           efficiency: fetched ? active * elemBytes / fetched : 0 };
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-launch-explorer");
  const controls = el("div", "ak-controls");
  const inputs = {};
  for (const [key, label] of [["n", "n "], ["block", "blockDim.x "], ["stride", "stride "], ["warp", "warp "]]) {
    const lab = el("label", "ak-label", label);
    const inp = el("input", `ak-${key}`); inp.type = "text"; inp.spellcheck = false;
    lab.appendChild(inp); controls.appendChild(lab); inputs[key] = inp;
  }
  const summary = el("pre", "ak-summary");
  const caption = el("div", "ak-caption", "threads of the grid (colour: block; outlined: the chosen warp; faded: idle)");
  const grid = el("div", "ak-storage");
  const formula = el("div", "ak-formula", "hover a thread to see its index arithmetic");
  root.append(controls, summary, caption, grid, formula);

  function draw() {
    const n = model.get("n"), block = model.get("block"), stride = model.get("stride"), warp = model.get("warp");
    for (const k of Object.keys(inputs)) inputs[k].value = String(model.get(k));
    grid.replaceChildren();
    const lay = launchLayout(n, block);
    if (lay.error) { summary.textContent = `error: ${lay.error}`; summary.classList.add("ak-error"); return; }
    const warpsPerBlock = Math.ceil(block / WARP);
    const totalWarps = lay.grid * warpsPerBlock;
    if (!(Number.isInteger(stride) && stride >= 1) || !(Number.isInteger(warp) && warp >= 0 && warp < totalWarps)) {
      summary.textContent = `error: stride must be >= 1 and warp between 0 and ${totalWarps - 1}`;
      summary.classList.add("ak-error"); return;
    }
    summary.classList.remove("ak-error");
    const ws = warpSegments(warp, block, n, stride, 4);
    const wb = ws.block, wfirst = ws.first, active = ws.active, segs = ws.segments, eff = ws.efficiency;
    summary.textContent = [
      `gridDim.x = ceil(${n} / ${block}) = ${lay.grid} blocks, ${lay.threads} threads, ${lay.idle} idle (i >= n)`,
      `warp ${warp} = threads ${wfirst}..${Math.min(wfirst + WARP, block) - 1} of block ${wb}: ${active} active`,
      `reading float32 x[i * ${stride}]: ${segs.length} sector${segs.length === 1 ? "" : "s"} of 32 bytes, ` +
        `${(100 * eff).toFixed(1)}% of the fetched bytes used` + (eff === 1 ? " (coalesced)" : ""),
    ].join("\n");
    const shown = Math.min(lay.threads, MAX_DRAWN);
    for (let t = 0; t < shown; t++) {
      const b = Math.floor(t / block), tx = t % block, i = b * block + tx;
      const c = el("span", "ak-cell", String(i));
      c.style.background = `hsla(${(b * 67) % 360}, 65%, 55%, ${i < n ? 0.35 : 0.08})`;
      if (i >= n) c.classList.add("ak-missing");
      if (b === wb && tx >= wfirst && tx < wfirst + WARP) c.classList.add("ak-hot");
      c.addEventListener("mouseenter", () => {
        formula.textContent = `blockIdx.x = ${b}, threadIdx.x = ${tx}: i = ${b} * ${block} + ${tx} = ${i}` +
          (i < n ? `, reads byte ${i * stride * 4} (sector ${Math.floor(i * stride * 4 / SEGMENT)})` : " >= n: returns");
      });
      grid.appendChild(c);
    }
    if (shown < lay.threads) grid.appendChild(el("span", "ak-caption", ` ... ${lay.threads - shown} more threads`));
  }

  for (const key of Object.keys(inputs)) {
    inputs[key].addEventListener("change", () => {
      const v = inputs[key].value.trim();
      if (!/^\d+$/.test(v)) { inputs[key].classList.add("ak-bad"); summary.textContent = `error: ${key} must be a whole number`; summary.classList.add("ak-error"); return; }
      inputs[key].classList.remove("ak-bad");
      model.set(key, parseInt(v, 10)); model.save_changes();
    });
  }
  const keys = ["n", "block", "stride", "warp"];
  for (const k of keys) model.on(`change:${k}`, draw);
  draw();
  return () => { for (const k of keys) model.off(`change:${k}`, draw); };
}

export default { render };
