// Batching explorer: the Go batcher's policy on random arrivals (chapter 18). Every timeline and
// statistic was computed by the library (aakaar.book.bench.batching.simulate) for a grid of loads
// and delays; this module draws the chosen one, so the widget responds in the static book.

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// Which request rows belong to which batch: batch k holds sizes[k] consecutive requests.
export function batchOf(sizes, count) {
  const out = [];
  sizes.forEach((n, k) => { for (let i = 0; i < n && out.length < count; i++) out.push(k); });
  return out;
}

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-batching-explorer");
  const controls = el("div", "ak-controls");
  const slider = (text, cls) => {
    const l = el("label", "ak-label", text); const s = el("input", cls); s.type = "range"; s.min = "0";
    const v = el("span", `${cls}-value`); l.append(s, v); controls.appendChild(l); return [s, v];
  };
  const [load, loadText] = slider("load ", "ak-load");
  const [delay, delayText] = slider(" MaxDelay ", "ak-delay");
  const summary = el("pre", "ak-summary");
  const W = 640, H = 150, M = 10;
  const plot = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%" });
  root.append(controls, summary, plot);

  function draw() {
    const loads = model.get("loads"), delays = model.get("delays_ms"), data = model.get("data");
    const li = model.get("load"), di = model.get("delay");
    load.max = String(loads.length - 1); load.value = String(li); loadText.textContent = `${loads[li]}×`;
    delay.max = String(delays.length - 1); delay.value = String(di); delayText.textContent = `${delays[di]} ms`;
    const s = data[li] && data[li][di];
    plot.replaceChildren();
    if (!s) return;
    const shown = s.starts.length ? s.sizes.reduce((a, n) => a + n, 0) : 0;
    const arrivals = s.arrivals.slice(0, shown);
    const t0 = arrivals[0] || 0, t1 = Math.max(...s.ends, t0 + 1e-3);
    const x = (t) => M + (W - 2 * M) * (t - t0) / (t1 - t0);
    const which = batchOf(s.sizes, shown);
    s.starts.forEach((start, k) => {
      plot.appendChild(svg("rect", { x: x(start), y: 12, width: Math.max(x(s.ends[k]) - x(start), 1), height: 22,
        fill: k % 2 ? "rgba(60,130,220,0.45)" : "rgba(240,160,40,0.55)" }));
    });
    arrivals.forEach((a, i) => {
      const y = 44 + (i % 25) * 4;
      plot.appendChild(svg("line", { x1: x(a), x2: x(s.starts[which[i]]), y1: y, y2: y, stroke: "rgba(127,127,127,0.8)", "stroke-width": 1 }));
      plot.appendChild(svg("circle", { cx: x(a), cy: y, r: 1.6, fill: "currentColor" }));
    });
    const label = svg("text", { x: M, y: H - 2, "font-size": 9, fill: "currentColor" });
    label.textContent = `${(t1 - t0).toFixed(2)} ms shown: bars are model calls, dots arrivals, lines their wait for a batch`;
    plot.appendChild(label);
    summary.textContent =
      `${Math.round(s.rate).toLocaleString()} requests/s (${loads[li]}× what one row at a time can serve), ` +
      `batches of up to ${model.get("max_batch")}, MaxDelay ${delays[di]} ms\n` +
      `mean batch ${s.mean_batch.toFixed(1)} rows; latency p50 ${s.p50_ms.toFixed(2)} ms, p99 ${s.p99_ms.toFixed(2)} ms`;
  }

  load.addEventListener("input", () => { model.set("load", parseInt(load.value, 10)); model.save_changes(); });
  delay.addEventListener("input", () => { model.set("delay", parseInt(delay.value, 10)); model.save_changes(); });
  for (const name of ["load", "delay", "data", "loads", "delays_ms", "max_batch"]) model.on(`change:${name}`, draw);
  draw();
}

export default { render };
