// Per-stream lane view from gpu_lanes.json: each lane is the busy fraction of
// N equal time bins over the file's GPU span, drawn as a heat strip; a
// device's streams are stacked, and under them an overlap row marks the bins
// where two or more of its streams were busy (bands behind the lanes too).
// Fixed size whatever the trace size, so drawing is instant. Once the
// module's per-kernel intervals arrive (spans.js; the page only, not a saved
// report) the view zooms down to single kernels: each drawn in its
// category's colour when a lane shows fewer kernels than pixels, busy per
// pixel otherwise (level of detail computed from the kernels in view only).
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';
import { catSlot, CATEGORIES } from './colors.js';
import { visible } from './tsv.js';
import { decodeSpans, buildLevels, busyPerPixel, inView, kernelAt } from './spans.js';

const ROW = 16;
const AXIS = 18;
const LABEL = 190;
const MIN_BINS = 4; // the deepest zoom: four of the artifact's bins across the plot

function css(el, name) {
  return getComputedStyle(el).getPropertyValue(name).trim();
}

/**
 * Rows to draw: each lane, and after a device's lanes (when it has ≥ 2) an
 * overlap row. Per bin: `n` = streams with any activity, `sure` = Σbusy − 1
 * (≥ 2 streams were certainly busy together for at least that fraction).
 */
function layout(f) {
  const rows = [];
  const byDev = new Map();
  for (const l of f.lanes) {
    if (!byDev.has(l.device)) byDev.set(l.device, []);
    byDev.get(l.device).push(l);
  }
  for (const [device, lanes] of byDev) {
    for (const l of lanes) rows.push({ lane: l });
    if (lanes.length < 2) continue;
    const n = new Array(f.bins).fill(0), sum = new Array(f.bins).fill(0);
    for (const l of lanes) {
      for (let b = 0; b < l.busy.length; b++) {
        if (l.busy[b] > 0) { n[b]++; sum[b] += l.busy[b]; }
      }
    }
    const sure = sum.map((v) => Math.max(0, Math.min(1, v - 1)));
    const active = n.filter((v) => v >= 2).length;
    const bins = sure.filter((v) => v > 0).length;
    const us = sure.reduce((a, v) => a + v, 0) * (f.span_us / f.bins);
    rows.push({ overlap: { device, n, sure, active, bins, us, first: rows.length - lanes.length, count: lanes.length } });
  }
  return rows;
}

// Which kernel lanes (spans.js) draw into a row of gpu_lanes.json: its own
// (device, stream), or, for the merged lane, every stream without a row.
function attachSpans(f, rows, sp, fs) {
  const own = new Set(f.lanes.filter((l) => !l.merged_streams).map((l) => `${l.device}/${l.stream}`));
  for (const row of rows) {
    if (!row.lane) continue;
    const l = row.lane;
    row.spans = l.merged_streams ? fs.lanes.filter((k) => !own.has(`${k.device}/${k.stream}`))
      : fs.lanes.filter((k) => k.device === l.device && k.stream === l.stream);
  }
  return sp;
}

function drawLanes(canvas, f, rows, view = { a: 0, b: f.bins }, sp = null, sel = null) {
  const w = canvas.clientWidth;
  if (!w) return;
  const dpr = window.devicePixelRatio || 1;
  const hgt = AXIS + rows.length * ROW + 2;
  canvas.style.height = `${hgt}px`;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(hgt * dpr);
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  const fg = css(canvas, '--fg'), dim = css(canvas, '--dim'), grid = css(canvas, '--grid'),
    busy = css(canvas, '--lane'), bg = css(canvas, '--lane-bg'), ovc = css(canvas, '--overlap');
  const plotW = w - LABEL - 4;
  g.clearRect(0, 0, w, hgt);
  // Generic family only: resolving the CSS font list for canvas costs
  // font-matching round trips on first draw.
  g.font = '11px monospace';
  g.textBaseline = 'middle';

  // Time axis over the view: ~8 ticks at round numbers.
  const binUs = f.span_us / f.bins;
  const t0 = view.a * binUs, span = (view.b - view.a) * binUs;
  const step = niceStep(span / 8);
  g.fillStyle = dim;
  const first = Math.ceil(t0 / step) * step;
  for (let t = first; t <= t0 + span + 1e-9 && step > 0; t += step) {
    const x = LABEL + ((t - t0) / span) * plotW;
    g.fillStyle = grid;
    g.fillRect(Math.round(x), AXIS - 4, 1, hgt - AXIS + 4);
    g.fillStyle = dim;
    // Deep in a long trace the ticks differ in digits dur() rounds away:
    // the first says where, the others how far from it.
    const rel = step > 0 && first !== t && t0 > step * 50;
    const label = rel ? `+${dur(t - first)}` : t ? dur(t) : '0';
    g.fillText(label, Math.min(x + 2, w - g.measureText(label).width - 2), AXIS / 2);
  }

  if (sp && plotW > 0) {
    drawKernels(canvas, g, f, rows, sp, t0, t0 + span, plotW, { fg, dim, bg, busy, ovc }, sel);
    return;
  }
  const bw = plotW / (view.b - view.a);
  const lo = Math.max(0, Math.floor(view.a)), hi = Math.min(f.bins, Math.ceil(view.b));
  // A bin's x and width, clipped to the plot (the view may cut the edge bins).
  const bx = (b) => Math.max(LABEL, LABEL + (b - view.a) * bw);
  const bwOf = (b) => Math.max(1, Math.min(LABEL + plotW, LABEL + (b + 1 - view.a) * bw) - bx(b));
  rows.forEach((row, i) => {
    const y = AXIS + i * ROW;
    if (row.lane) {
      const l = row.lane;
      g.fillStyle = fg;
      g.fillText(`dev ${l.device} · s ${l.stream}`, 4, y + ROW / 2);
      g.fillStyle = dim;
      g.fillText(int(l.ops), LABEL - 8 - g.measureText(int(l.ops)).width, y + ROW / 2);
      g.fillStyle = bg;
      g.fillRect(LABEL, y + 2, plotW, ROW - 4);
      return;
    }
    // Overlap row, and bands behind the device's lanes where ≥ 2 are busy.
    const o = row.overlap;
    g.fillStyle = fg;
    g.fillText(`dev ${o.device} · overlap`, 4, y + ROW / 2);
    g.fillStyle = dim;
    g.fillText(int(o.bins), LABEL - 8 - g.measureText(int(o.bins)).width, y + ROW / 2);
    g.fillStyle = bg;
    g.fillRect(LABEL, y + 2, plotW, ROW - 4);
    g.fillStyle = ovc;
    const top = AXIS + o.first * ROW;
    for (let b = lo; b < hi; b++) {
      if (o.n[b] < 2) continue;
      const x = bx(b), bwid = bwOf(b);
      const sure = o.sure[b];
      // Bins where the busy fractions add up past 1 certainly overlap: a band
      // behind the device's lanes, and opacity by that certain fraction. Bins
      // where ≥ 2 streams were merely active get a faint mark.
      if (sure > 0) {
        g.globalAlpha = 0.1 + 0.2 * sure;
        g.fillRect(x, top, bwid, o.count * ROW);
      }
      g.globalAlpha = sure > 0 ? 0.4 + 0.6 * sure : 0.12;
      g.fillRect(x, y + 2, bwid, ROW - 4);
    }
    g.globalAlpha = 1;
  });
  // Busy strips last, over the overlap bands.
  g.fillStyle = busy;
  rows.forEach((row, i) => {
    if (!row.lane) return;
    const y = AXIS + i * ROW;
    const l = row.lane;
    for (let b = lo; b < Math.min(hi, l.busy.length); b++) {
      const v = l.busy[b];
      if (v <= 0) continue;
      // Opacity encodes the busy fraction; a floor keeps short blips visible.
      g.globalAlpha = 0.15 + 0.85 * v;
      g.fillRect(bx(b), y + 2, bwOf(b), ROW - 4);
    }
  });
  g.globalAlpha = 1;
}

// The view from the kernels themselves: per lane, busy per pixel (and the
// overlap rows from those), then, where a lane's kernels in view are mostly
// a pixel wide or more, each kernel in its category's colour.
function drawKernels(canvas, g, f, rows, sp, t0, t1, plotW, c, sel) {
  const started = performance.now();
  const px = Math.max(1, Math.floor(plotW));
  const slot = CATEGORIES.map((_, i) => css(canvas, `--c${i}`));
  const busy = new Map();
  let shown = 0, kernelRows = 0, busyRows = 0;
  rows.forEach((row) => { if (row.lane) { const acc = new Float32Array(px); Object.assign(row, busyPerPixel(sp, row.spans, t0, t1, px, acc)); busy.set(row, acc); } });
  const scale = plotW / (t1 - t0);
  rows.forEach((row, i) => {
    const y = AXIS + i * ROW;
    g.fillStyle = c.fg;
    if (row.lane) {
      const l = row.lane;
      g.fillText(l.merged_streams ? `dev * · ${int(l.merged_streams)} merged` : `dev ${l.device} · s ${l.stream}`, 4, y + ROW / 2);
      g.fillStyle = c.dim;
      g.fillText(int(l.ops), LABEL - 8 - g.measureText(int(l.ops)).width, y + ROW / 2);
      g.fillStyle = c.bg;
      g.fillRect(LABEL, y + 2, plotW, ROW - 4);
      return;
    }
    const o = row.overlap;
    g.fillText(`dev ${o.device} · overlap`, 4, y + ROW / 2);
    g.fillStyle = c.bg;
    g.fillRect(LABEL, y + 2, plotW, ROW - 4);
    // Σ busy − 1 per pixel: two or more streams certainly busy together.
    const lanes = rows.slice(o.first, o.first + o.count).map((r) => busy.get(r));
    g.fillStyle = c.ovc;
    for (let p = 0; p < px; p++) {
      let sum = 0, n = 0;
      for (const b of lanes) if (b[p] > 0) { sum += Math.min(1, b[p]); n++; }
      if (n < 2) continue;
      const sure = Math.max(0, Math.min(1, sum - 1));
      if (sure > 0) { g.globalAlpha = 0.1 + 0.2 * sure; g.fillRect(LABEL + p, AXIS + o.first * ROW, 1, o.count * ROW); }
      g.globalAlpha = sure > 0 ? 0.4 + 0.6 * sure : 0.12;
      g.fillRect(LABEL + p, y + 2, 1, ROW - 4);
    }
    g.globalAlpha = 1;
  });
  rows.forEach((row, i) => {
    if (!row.lane) return;
    const y = AXIS + i * ROW;
    // One by one when most of them are a pixel wide or more, or when they
    // are few; else busy per pixel.
    row.single = row.thin * 2 <= row.seen || row.seen * 8 <= px;
    if (!row.single) { // more kernels than pixels can tell apart: busy per pixel
      busyRows++;
      const acc = busy.get(row);
      g.fillStyle = c.busy;
      for (let p = 0; p < px; p++) {
        const v = Math.min(1, acc[p]);
        if (v <= 0) continue;
        g.globalAlpha = 0.15 + 0.85 * v;
        g.fillRect(LABEL + p, y + 2, 1, ROW - 4);
      }
      g.globalAlpha = 1;
      return;
    }
    if (row.seen) kernelRows++;
    for (const lane of row.spans) {
      const [i0, i1] = inView(sp, lane, t0, t1);
      for (let k = i0; k < i1; k++) {
        const s = sp.start[k], e = s + sp.dur[k];
        if (e < t0 || s > t1) continue;
        const x = LABEL + Math.max(0, (s - t0) * scale), xe = LABEL + Math.min(plotW, (e - t0) * scale);
        const w = Math.max(1, xe - x);
        g.fillStyle = slot[catSlot(sp.categories[sp.name[k]])];
        g.fillRect(x, y + 2, w, ROW - 4);
        shown++;
        if (w > 60) { // the name fits: inside the kernel, clipped to it
          g.save();
          g.beginPath();
          g.rect(x + 2, y, w - 4, ROW);
          g.clip();
          g.fillStyle = '#fff';
          g.fillText(sp.names[sp.name[k]], x + 3, y + ROW / 2);
          g.restore();
        }
      }
    }
  });
  if (sel && sel.k >= 0) { // the kernel chosen from the keyboard: outlined
    const s = sp.start[sel.k], e = s + sp.dur[sel.k];
    if (e >= t0 && s <= t1) {
      const x = LABEL + Math.max(0, (s - t0) * scale), xe = LABEL + Math.min(plotW, (e - t0) * scale);
      g.strokeStyle = c.fg;
      g.lineWidth = 2;
      g.strokeRect(x - 1, AXIS + sel.row * ROW + 1, Math.max(2, xe - x) + 2, ROW - 2);
    }
  }
  // kernels: every lane with kernels in view draws them one by one
  canvas.dataset.mode = busyRows ? (kernelRows ? 'mixed' : 'busy') : 'kernels';
  canvas.dataset.shown = String(shown);
  canvas.dataset.drawMs = (performance.now() - started).toFixed(1); // the bench reads it
}

function niceStep(x) {
  if (!(x > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

function laneFile(f, hooks) {
  if (!f.lanes?.length) return h('div.lanefile', h('h3.mono', f.file), h('p.dim', 'no GPU activity'));
  const rows = layout(f);
  const ovRows = rows.filter((r) => r.overlap);
  const canvas = h('canvas.lanes', { tabindex: 0, title: 'wheel or + / - to zoom, drag or arrows to pan, 0 to reset', role: 'img', 'aria-label': `${f.lanes.length} GPU streams over ${dur(f.span_us)}` +
    ovRows.map((r) => `; device ${r.overlap.device}: two or more streams busy in ${r.overlap.bins} of ${f.bins} bins`).join('') });
  const tip = h('div.tip', { hidden: true });
  // The kernel chosen from the keyboard, said in full (a live region).
  const said = h('p.kfocus.mono', { 'aria-live': 'polite' });
  // The shown time range, in bins: wheel zooms around the pointer, drag pans,
  // the keyboard (canvas focused) zooms with + and -, pans with the arrows,
  // 0 resets. Without kernels the resolution is the artifact's bins (f.bins
  // over the span); with them (setSpans) it goes down to 50 ns.
  const view = { a: 0, b: f.bins };
  let sp = null;
  const sel = { row: rows.findIndex((r) => r.lane), k: -1 };
  const usPerBin = f.span_us / f.bins;
  const minBins = () => (sp ? Math.min(MIN_BINS, 0.05 / usPerBin) : MIN_BINS);
  const binAt = (x) => { const plotW = canvas.clientWidth - LABEL - 4; return view.a + ((x - LABEL) / plotW) * (view.b - view.a); };
  const setView = (a, b) => {
    const w = Math.min(f.bins, Math.max(minBins(), b - a));
    a = Math.max(0, Math.min(f.bins - w, a));
    view.a = a; view.b = a + w;
    canvas.dataset.view = `${(view.a * usPerBin).toFixed(3)}-${(view.b * usPerBin).toFixed(3)}`;
    redraw();
  };
  const zoom = (factor, at) => setView(at - (at - view.a) * factor, at + (view.b - at) * factor);
  // One draw per frame however many wheel events come.
  let pending = 0;
  const schedule = () => { if (!pending) pending = requestAnimationFrame(() => { pending = 0; redraw(); }); };
  const setViewSoon = (a, b) => { const keep = redraw; redraw = schedule; try { setView(a, b); } finally { redraw = keep; } };
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) { const d = (e.deltaX || e.deltaY) / r.width * (view.b - view.a); setViewSoon(view.a + d, view.b + d); return; }
    const at = binAt(e.clientX - r.left), factor = e.deltaY < 0 ? 0.8 : 1.25;
    setViewSoon(at - (at - view.a) * factor, at + (view.b - at) * factor);
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, a: view.a, b: view.b }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointerup', () => { drag = null; });
  // [ and ] step through the kernels of the chosen lane (up / down arrows
  // choose it), bringing each into view and saying its full name.
  const step = (dir) => {
    if (!sp) return;
    const row = rows[sel.row];
    if (!row?.spans?.length) return;
    const t = sel.k >= 0 ? sp.start[sel.k] : view.a * usPerBin - 1e-9;
    let best = -1;
    for (const lane of row.spans) { // the next (previous) start among the row's lanes
      const end = lane.first + lane.count;
      const mine = sel.k >= lane.first && sel.k < end;
      const [lo] = inView(sp, { ...lane, maxDur: 0 }, t, t); // first start ≥ t
      const i = mine ? sel.k + dir : dir > 0 ? lo : lo - 1;
      if (i < lane.first || i >= end) continue;
      if (best < 0 || (dir > 0 ? sp.start[i] < sp.start[best] : sp.start[i] > sp.start[best])) best = i;
    }
    if (best < 0) return;
    sel.k = best;
    const s = sp.start[best] / usPerBin, e = (sp.start[best] + sp.dur[best]) / usPerBin;
    let w = view.b - view.a;
    const plotW = canvas.clientWidth - LABEL - 4;
    if ((e - s) / w * plotW < 3) w = Math.max((e - s) * 10, minBins()); // too thin to see: zoom in
    if (s < view.a || e > view.b || w !== view.b - view.a) setView((s + e) / 2 - w / 2, (s + e) / 2 + w / 2);
    else redraw();
    said.textContent = visible(describe(best, row));
  };
  const describe = (k, row) => `${sp.names[sp.name[k]]} · ${dur(sp.dur[k])} at ${dur(sp.start[k])} · ${sp.categories[sp.name[k]]}` +
    (row?.lane ? ` · device ${row.lane.device} stream ${row.lane.stream}` : '');
  canvas.addEventListener('keydown', (e) => {
    const mid = (view.a + view.b) / 2, stepW = (view.b - view.a) * 0.2;
    const moveRow = (d) => { if (!sp) return; let r = sel.row; do r += d; while (rows[r] && !rows[r].lane); if (rows[r]) { sel.row = r; sel.k = -1; redraw(); said.textContent = `device ${rows[r].lane.device} stream ${rows[r].lane.stream}: [ and ] step through its kernels`; } };
    const k = { '+': () => zoom(0.8, mid), '=': () => zoom(0.8, mid), '-': () => zoom(1.25, mid), ArrowLeft: () => setView(view.a - stepW, view.b - stepW), ArrowRight: () => setView(view.a + stepW, view.b + stepW), 0: () => setView(0, f.bins),
      ']': () => step(1), '[': () => step(-1), ArrowUp: sp && (() => moveRow(-1)), ArrowDown: sp && (() => moveRow(1)) }[e.key];
    if (k) { e.preventDefault(); k(); }
  });
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    if (drag) { const d = ((drag.x - e.clientX) / (r.width - LABEL - 4)) * (drag.b - drag.a); setViewSoon(drag.a + d, drag.b + d); return; }
    const row = rows[Math.floor((y - AXIS) / ROW)];
    const bf = binAt(x), b = Math.floor(bf);
    if (!row || y < AXIS || b < 0 || b >= f.bins) { tip.hidden = true; return; }
    let text = null;
    if (sp && row.spans && row.single) { // a kernel under the pointer (3 px of slack)
      const us = (view.b - view.a) * usPerBin / (r.width - LABEL - 4);
      const k = kernelAt(sp, row.spans, bf * usPerBin, 3 * us);
      if (k >= 0) text = describe(k, row);
    }
    const t0 = (b / f.bins) * f.span_us, t1 = ((b + 1) / f.bins) * f.span_us;
    if (!text && sp && row.lane && row.single) text = `device ${row.lane.device} stream ${row.lane.stream} · ${dur(bf * usPerBin)} · no kernel`;
    tip.textContent = visible(text ?? (row.lane
      ? `device ${row.lane.device} stream ${row.lane.stream} · ${dur(t0)}–${dur(t1)} · busy ${pct(row.lane.busy[b], 0)}`
      : `device ${row.overlap.device} · ${dur(t0)}–${dur(t1)} · ${row.overlap.n[b]} streams active` +
        (row.overlap.sure[b] > 0 ? ` · ≥ 2 busy for at least ${pct(row.overlap.sure[b], 0)} of the bin` : row.overlap.n[b] >= 2 ? ' · may overlap' : '')));
    tip.hidden = false;
    tip.style.left = `${Math.max(0, Math.min(x + 12, r.width - tip.offsetWidth - 4))}px`;
    tip.style.top = `${y + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  // Drawn only while on screen (else when it comes into view): reading the
  // canvas's size in a section the browser skips (content-visibility: auto)
  // would lay that whole section out — the kernels arrive while the report
  // is still being laid out.
  let onScreen = false, dirty = true;
  let redraw = () => { if (!onScreen) { dirty = true; return; } dirty = false; drawLanes(canvas, f, rows, view, sp, sel); };
  new IntersectionObserver((es) => { onScreen = es[es.length - 1].isIntersecting; if (onScreen && dirty) redraw(); }).observe(canvas);
  new ResizeObserver(() => redraw()).observe(canvas);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => redraw());
  // The kernels arrived: draw from them, zoom to single kernels.
  // Stage and step selectors (once the kernels, and with them the step
  // windows, are here): a step zooms the view to its window; the choice
  // goes into the address's fragment (#stage=decode&step=3) so a reload
  // or a shared link, with the same trace dropped, shows the same view.
  const stepBar = h('div.stepbar', { hidden: true });
  const stepNote = h('span.dim.stepnote', { 'aria-live': 'polite' });
  const setup = (all) => {
    const steps = (all.steps ?? []).filter((x) => x.file === f.file);
    if (!steps.length) return null;
    const stages = [...new Set(steps.map((x) => x.stage))];
    const stageSel = h('select.stagesel', { 'aria-label': 'stage' }, h('option', { value: '' }, 'every stage'), stages.map((st) => h('option', { value: st }, st)));
    const stepSel = h('select.stepsel', { 'aria-label': 'step' });
    const ofStage = () => steps.filter((x) => !stageSel.value || x.stage === stageSel.value);
    const fill = () => {
      const list = ofStage();
      // A select stays usable up to a few hundred steps; past that, every
      // tenth (the fragment still takes any step).
      const every = Math.max(1, Math.ceil(list.length / 500));
      stepSel.replaceChildren(h('option', { value: '' }, `all ${list.length} steps`),
        ...list.flatMap((x, i) => (i % every === 0 ? [h('option', { value: String(i + 1) }, `#${i + 1} ${x.name} · ${dur(x.dur_us)} at ${dur(x.start_us)}`)] : [])));
    };
    const apply = (write) => {
      const list = ofStage();
      const n = Number(stepSel.value) || 0;
      const pick = n ? [list[n - 1]] : list;
      if (!pick.length || !pick[0]) return;
      const a = Math.min(...pick.map((x) => x.start_us)), b = Math.max(...pick.map((x) => x.start_us + x.dur_us));
      const pad = (b - a) * 0.02;
      setView((a - pad) / usPerBin, (b + pad) / usPerBin);
      stepNote.textContent = n ? `step ${n} of ${list.length}${stageSel.value ? ` (${stageSel.value})` : ''}: ${visible(list[n - 1].name)}, ${dur(list[n - 1].dur_us)}`
        : `${stageSel.value || 'every stage'}: ${list.length} steps over ${dur(b - a)}`;
      canvas.dataset.step = n ? `${stageSel.value}:${n}` : stageSel.value;
      if (write) {
        // Other selectors' parameters (rank=…) stay; a bare #section goes.
        const q = new URLSearchParams(location.hash.slice(1).split('&').filter((x) => x.includes('=')).join('&'));
        q.delete('stage'); q.delete('step');
        if (stageSel.value) q.set('stage', stageSel.value);
        if (n) q.set('step', String(n));
        history.replaceState(null, '', `${location.pathname}${location.search}${q.size ? `#${q}` : ''}`);
      }
    };
    stageSel.addEventListener('change', () => { fill(); apply(true); });
    stepSel.addEventListener('change', () => apply(true));
    fill();
    stepBar.replaceChildren(h('label', 'stage ', stageSel), h('label', 'step ', stepSel), stepNote);
    stepBar.hidden = false;
    // The fragment's choice, when it names a stage or step of this file.
    return () => {
      const q = new URLSearchParams(location.hash.slice(1));
      const st = q.get('stage') ?? '', n = Number(q.get('step')) || 0;
      if (!q.has('stage') && !n) return;
      if (st && !stages.includes(st)) return;
      stageSel.value = st;
      fill();
      if (n && n <= ofStage().length) {
        if (![...stepSel.options].some((o) => o.value === String(n))) stepSel.append(h('option', { value: String(n) }, `#${n} ${ofStage()[n - 1].name}`));
        stepSel.value = String(n);
      }
      apply(false);
    };
  };
  hooks.push((all, fs) => {
    sp = attachSpans(f, rows, all, fs);
    canvas.dataset.kernels = String(fs.lanes.reduce((n, l) => n + l.count, 0));
    canvas.title = 'wheel or + / - to zoom to single kernels, drag or arrows to pan, 0 to reset; up / down choose a stream, [ and ] step through its kernels';
    const restore = setup(all);
    schedule();
    restore?.();
  });

  const mean = (a) => a.reduce((s, v) => s + v, 0) / (a.length || 1);
  return h('div.lanefile', [
    h('h3', h('span.mono', { title: f.file }, f.file.split(/[\\/]/).pop()), h('span.dim', ` · span ${dur(f.span_us)} · ${f.bins} bins of ${dur(f.span_us / f.bins)}`),
      ovRows.map((r) => h('span.dim.ovnote', { title: `two or more streams active in ${r.overlap.active} bins; in ${r.overlap.bins} their busy fractions add up past 1, so they certainly overlapped for at least the excess` },
        ` · device ${r.overlap.device}: streams overlap ≥ ${dur(r.overlap.us)} (${pct(r.overlap.us / f.span_us)} of the span)`))),
    stepBar,
    h('div.lanewrap', canvas, tip),
    said,
    h('details', [
      h('summary', 'lane numbers'),
      h('table.nums', [
        h('thead', h('tr', ['device', 'stream', 'ops', 'mean busy'].map((c) => h('th', { scope: 'col' }, c)))),
        // the merged lane (gpu_lanes.json caps lanes per file): its streams' count
        h('tbody', f.lanes.map((l) => h('tr', h('td.num', l.merged_streams ? '—' : l.device),
          h('td.num', l.merged_streams ? `${int(l.merged_streams)} streams merged` : l.stream), h('td.num', int(l.ops)), h('td.num', pct(mean(l.busy)))))),
      ]),
    ]),
  ]);
}

// A macrotask boundary between slices of work (input and paint run).
function pause() {
  if (globalThis.scheduler?.yield) return globalThis.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * @param {object} gl gpu_lanes.json
 * @param {Promise<null|{buffer: ArrayBuffer}>} [spans] the job's per-kernel
 *   intervals (the page: client.start's spans; a saved report has none)
 */
export function renderLanes(gl, spans) {
  if (!gl?.files?.length) return null;
  const hooks = [];
  const files = gl.files.map((f) => { const fh = []; hooks.push(fh); return laneFile(f, fh); });
  spans?.then(async (s) => {
    const sp = s && decodeSpans(s.buffer);
    if (!sp) return;
    await buildLevels(sp, pause);
    if (window.__gputriage) window.__gputriage.spansAt = performance.now(); // the bench reads it
    gl.files.forEach((f, i) => {
      const fs = sp.files.find((x) => x.file === f.file);
      if (fs) for (const fn of hooks[i]) fn(sp, fs);
    });
  });
  return section('lanes', 'GPU streams',
    gl.files.some((f) => new Set(f.lanes?.map((l) => l.device)).size < (f.lanes?.length ?? 0)) &&
      h('p.dim', 'Blue: busy fraction per bin. Overlap row (orange): bins where two or more streams of a device were certainly busy together (busy fractions adding up past 1; darker = more), also shaded behind the lanes; faint: ≥ 2 streams active, possibly overlapping.'),
    spans && h('p.dim', 'Zoom in (wheel, + / -) down to single kernels, coloured by category; hover one, or focus the lanes and press [ or ], for its full name and duration.'),
    files);
}
