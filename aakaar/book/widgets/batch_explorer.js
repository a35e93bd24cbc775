// Batch explorer: an epoch's order (sequential, or the library's shuffled order for a seed) cut into
// batches as BatchSampler does. The orders come from Python; the batching is computed here, so the
// widget responds in the static book.

// The batches of `order`: runs of `size` indices; the short last one dropped when dropLast.
export function batchesOf(order, size, dropLast) {
  const out = [];
  for (let i = 0; i < order.length; i += size) out.push(order.slice(i, i + size));
  if (dropLast && out.length && out[out.length - 1].length < size) out.pop();
  return out;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const COLOURS = ["rgba(60,130,220,0.30)", "rgba(240,160,40,0.35)", "rgba(70,170,90,0.30)", "rgba(200,80,160,0.28)"];

function render({ model, el: root }) {
  root.classList.add("ak-widget", "ak-batch-explorer");
  const controls = el("div", "ak-controls");
  const label = (text, input) => { const l = el("label", "ak-label", text); l.appendChild(input); controls.appendChild(l); return input; };
  const size = label("batch_size ", el("input", "ak-batch-size")); size.type = "range"; size.min = "1";
  const sizeText = el("span", "ak-batch-size-value"); controls.appendChild(sizeText);
  const shuffle = label(" shuffle ", el("input", "ak-shuffle")); shuffle.type = "checkbox";
  const drop = label(" drop_last ", el("input", "ak-drop-last")); drop.type = "checkbox";
  const seed = label(" seed ", el("select", "ak-seed"));
  const summary = el("pre", "ak-summary");
  const epochs = el("div", "ak-epochs");
  root.append(controls, summary, epochs);

  function draw() {
    const n = model.get("n"), b = model.get("batch_size"), orders = model.get("orders");
    size.max = String(n); size.value = String(b); sizeText.textContent = String(b);
    shuffle.checked = model.get("shuffle"); drop.checked = model.get("drop_last");
    if (seed.options.length !== orders.length) {
      seed.replaceChildren(...orders.map((_, s) => { const o = el("option", "", String(s)); o.value = String(s); return o; }));
    }
    seed.value = String(model.get("seed")); seed.disabled = !shuffle.checked;
    const sequential = Array.from({ length: n }, (_, i) => i);
    const perEpoch = orders[model.get("seed")] || [];
    epochs.replaceChildren();
    let count = 0;
    perEpoch.forEach((shuffled, e) => {
      const order = shuffle.checked ? shuffled : sequential;
      const batches = batchesOf(order, b, drop.checked);
      count = batches.length;
      const row = el("div", "ak-storage");
      row.appendChild(el("span", "ak-rowname", `epoch ${e + 1}`));
      batches.forEach((batch, k) => {
        batch.forEach((i) => {
          const c = el("span", "ak-cell", String(i));
          c.style.background = COLOURS[k % COLOURS.length];
          c.title = `batch ${k + 1}`;
          row.appendChild(c);
        });
        if (k < batches.length - 1) row.appendChild(el("span", "ak-rowname", "|"));
      });
      const dropped = order.length - batches.reduce((a, x) => a + x.length, 0);
      if (dropped) row.appendChild(el("span", "ak-rowname", `(${dropped} dropped)`));
      epochs.appendChild(row);
    });
    const rule = drop.checked ? `floor(${n} / ${b})` : `ceil(${n} / ${b})`;
    summary.textContent = `${n} samples, batches of ${b}: ${count} batches per epoch = ${rule}` +
      (shuffle.checked ? `; seed ${model.get("seed")}: the same epochs every run, a new order each epoch`
                       : "; no shuffling: every epoch the same order");
  }

  size.addEventListener("input", () => { model.set("batch_size", parseInt(size.value, 10)); model.save_changes(); });
  shuffle.addEventListener("change", () => { model.set("shuffle", shuffle.checked); model.save_changes(); });
  drop.addEventListener("change", () => { model.set("drop_last", drop.checked); model.save_changes(); });
  seed.addEventListener("change", () => { model.set("seed", parseInt(seed.value, 10)); model.save_changes(); });
  for (const name of ["batch_size", "shuffle", "drop_last", "seed", "orders", "n"]) model.on(`change:${name}`, draw);
  draw();
}

export default { render };
