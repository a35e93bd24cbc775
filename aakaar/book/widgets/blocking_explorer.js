// Blocking explorer for the packed GEMM (csrc/cpu/gemm/packed.h): pick MC, KC, NC and see the
// footprint of each packed block next to the cache it is meant to live in. All arithmetic runs
// here, in the browser, so the widget responds in the static book; Python only holds the state.

const YMM_BYTES = 32, YMM_REGISTERS = 16;  // AVX2: sixteen 256-bit registers

const kib = (b) => (b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(b % (1024 * 1024) ? 1 : 0)} MiB`
  : b >= 1024 ? `${(b / 1024).toFixed(b % 1024 ? 1 : 0)} KiB` : `${b} B`);

// Whole strips only, as resolve_blocking() does: MC is rounded up to MR, NC to NR.
export function roundBlocking(p) {
  return { ...p, mc: Math.ceil(p.mc / p.mr) * p.mr, nc: Math.ceil(p.nc / p.nr) * p.nr };
}

// A block "fits" in at most half its cache (the other half holds what streams past it: the A
// strip and C tile in L1, the B strips in L2, the other cores' data in L3); "tight" up to the
// whole cache; beyond that it "spills" and is reloaded from the next level on every pass.
export function verdict(bytes, capacity) {
  if (bytes <= capacity / 2) return "fits";
  if (bytes <= capacity) return "tight";
  return "spills";
}

// The footprint of each block of the five loops, and where it should live.
export function footprints(params) {
  const p = roundBlocking(params);
  const e = p.elem_bytes;
  const accumulators = Math.ceil((p.mr * p.nr * e) / YMM_BYTES);
  const bVectors = Math.ceil((p.nr * e) / YMM_BYTES);
  const registers = accumulators + bVectors + 1;  // + one broadcast A value
  return {
    blocking: p,
    blocks: [
      { name: `C tile ${p.mr}x${p.nr} (+ B row + A value)`, where: "registers", bytes: registers * YMM_BYTES,
        capacity: YMM_REGISTERS * YMM_BYTES, verdict: registers <= YMM_REGISTERS ? "fits" : "spills",
        note: `${accumulators} accumulators + ${bVectors} B vectors + 1 broadcast = ${registers} of ${YMM_REGISTERS} ymm registers` },
      { name: `B strip KC x NR = ${p.kc}x${p.nr}`, where: "L1", bytes: p.kc * p.nr * e, capacity: p.l1,
        verdict: verdict(p.kc * p.nr * e, p.l1), note: `reused by all ${p.mc / p.mr} A strips of the block` },
      { name: `A block MC x KC = ${p.mc}x${p.kc}`, where: "L2", bytes: p.mc * p.kc * e, capacity: p.l2,
        verdict: verdict(p.mc * p.kc * e, p.l2), note: `reused by all ${p.nc / p.nr} B strips of the panel` },
      { name: `B panel KC x NC = ${p.kc}x${p.nc}`, where: "L3", bytes: p.kc * p.nc * e, capacity: p.l3,
        verdict: verdict(p.kc * p.nc * e, p.l3), note: "reused by every A block of this pass over K" },
    ],
    // Per k step the micro-kernel does MR*NR multiply-adds on MR + NR loaded values.
    flopsPerByte: (2 * p.mr * p.nr) / ((p.mr + p.nr) * e),
  };
}

// Inline styles: the shared widgets.css knows nothing of bars.
const STYLE = {
  row: "display:grid;grid-template-columns:minmax(16em,auto) 12em 1fr;gap:0.6em;align-items:center;margin:0.2em 0",
  track: "position:relative;height:1em;background:rgba(127,127,127,0.12);border-radius:3px",
  fill: "position:absolute;left:0;top:0;bottom:0;border-radius:3px",
  capacity: "position:absolute;left:50%;top:-0.2em;bottom:-0.2em;border-left:2px solid rgba(127,127,127,0.9)",
};

function el(tag, cls, text) {
  const x = document.createElement(tag);
  if (cls) x.className = cls;
  if (text !== undefined) x.textContent = text;
  return x;
}

const COLOURS = { fits: "rgba(60,170,90,0.55)", tight: "rgba(240,160,40,0.6)", spills: "rgba(220,50,50,0.6)" };

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-blocking-explorer");
  const controls = el("div", "ak-controls");
  const inputs = {};
  const mk = (key, label, title) => {
    const lab = el("label", "ak-label", label);
    const inp = el("input", `ak-${key}`); inp.type = "number"; inp.min = "1"; inp.title = title;
    lab.appendChild(inp); controls.appendChild(lab); inputs[key] = inp;
  };
  mk("mc", "MC", "rows of A per packed block");
  mk("kc", "KC", "depth of each packed block");
  mk("nc", "NC", "columns of B per packed panel");
  const dtype = el("select", "ak-dtype");
  for (const [v, t] of [["4", "float32"], ["8", "float64"]]) { const o = el("option", null, t); o.value = v; dtype.appendChild(o); }
  controls.appendChild(dtype);
  const cacheRow = el("div", "ak-controls");
  for (const [key, label] of [["l1", "L1 KiB"], ["l2", "L2 KiB"], ["l3", "L3 KiB"]]) {
    const lab = el("label", "ak-label", label);
    const inp = el("input", `ak-${key}`); inp.type = "number"; inp.min = "1";
    lab.appendChild(inp); cacheRow.appendChild(lab); inputs[key] = inp;
  }
  const summary = el("pre", "ak-summary");
  const bars = el("div", "ak-bars");
  root.append(controls, cacheRow, summary, bars);

  function draw() {
    const p = {};
    for (const k of ["mc", "kc", "nc", "mr", "nr", "elem_bytes", "l1", "l2", "l3"]) p[k] = model.get(k);
    for (const k of ["mc", "kc", "nc"]) inputs[k].value = p[k];
    for (const k of ["l1", "l2", "l3"]) inputs[k].value = Math.round(p[k] / 1024);
    dtype.value = String(p.elem_bytes);
    const r = footprints(p);
    bars.replaceChildren();
    for (const b of r.blocks) {
      const row = el("div", "ak-bar-row"); row.style.cssText = STYLE.row;
      const label = el("div", "ak-bar-label", `${b.name} -> ${b.where}`);
      const track = el("div", "ak-bar-track"); track.style.cssText = STYLE.track;
      const fill = el("div", `ak-bar-fill ak-${b.verdict}`); fill.style.cssText = STYLE.fill;
      fill.style.width = `${Math.min(100, (100 * b.bytes) / b.capacity / 2)}%`;  // the track is 2x the cache
      fill.style.background = COLOURS[b.verdict];
      const cap = el("div", "ak-bar-capacity"); cap.style.cssText = STYLE.capacity;  // the cache size, at half the track
      track.append(fill, cap);
      const text = el("div", "ak-bar-text",
        `${kib(b.bytes)} of ${kib(b.capacity)} (${Math.round((100 * b.bytes) / b.capacity)}%): ${b.verdict} - ${b.note}`);
      row.append(label, track, text);
      bars.appendChild(row);
    }
    const worst = r.blocks.find((b) => b.verdict === "spills");
    const q = r.blocking;
    summary.classList.toggle("ak-error", Boolean(worst));
    summary.textContent = [
      `blocking MC=${q.mc} KC=${q.kc} NC=${q.nc} (rounded to whole ${q.mr}x${q.nr} tiles), ${p.elem_bytes === 4 ? "float32" : "float64"}`,
      `micro-kernel: ${(r.flopsPerByte).toFixed(2)} flops per byte loaded from L1`,
      worst ? `${worst.name} spills out of ${worst.where}: it is reloaded from further away on every reuse`
            : "every block fits where it should: each byte fetched from memory is reused many times",
    ].join("\n");
  }

  const onNumber = (key, scale) => inputs[key].addEventListener("change", () => {
    const v = Number(inputs[key].value);
    if (!Number.isInteger(v) || v < 1) {
      inputs[key].classList.add("ak-bad");
      summary.textContent = `error: ${key.toUpperCase()} must be a whole number >= 1, got "${inputs[key].value}"`;
      summary.classList.add("ak-error");
      return;
    }
    inputs[key].classList.remove("ak-bad");
    model.set(key, v * scale); model.save_changes();
  });
  for (const k of ["mc", "kc", "nc"]) onNumber(k, 1);
  for (const k of ["l1", "l2", "l3"]) onNumber(k, 1024);
  dtype.addEventListener("change", () => {
    const e = Number(dtype.value);
    model.set("elem_bytes", e);
    model.set("nr", e === 4 ? 16 : 8);  // Tile<float> is 6x16, Tile<double> 6x8
    model.save_changes();
  });
  const keys = ["mc", "kc", "nc", "mr", "nr", "elem_bytes", "l1", "l2", "l3"];
  for (const k of keys) model.on(`change:${k}`, draw);
  draw();
  return () => { for (const k of keys) model.off(`change:${k}`, draw); };
}

export default { render };
