// Per-stream lane view from gpu_lanes.json: each lane is the busy fraction of
// N equal time bins over the file's GPU span, drawn as a heat strip; a
// device's streams are stacked, and under them an overlap row marks the bins
// where two or more of its streams were busy (bands behind the lanes too).
// Fixed size whatever the trace size, so drawing is instant.
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';

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

function drawLanes(canvas, f, rows, view = { a: 0, b: f.bins }) {
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
  for (let t = Math.ceil(t0 / step) * step; t <= t0 + span + 1e-9 && step > 0; t += step) {
    const x = LABEL + ((t - t0) / span) * plotW;
    g.fillStyle = grid;
    g.fillRect(Math.round(x), AXIS - 4, 1, hgt - AXIS + 4);
    g.fillStyle = dim;
    const label = t ? dur(t) : '0';
    g.fillText(label, Math.min(x + 2, w - g.measureText(label).width - 2), AXIS / 2);
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

function niceStep(x) {
  if (!(x > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

function laneFile(f) {
  if (!f.lanes?.length) return h('div.lanefile', h('h3.mono', f.file), h('p.dim', 'no GPU activity'));
  const rows = layout(f);
  const ovRows = rows.filter((r) => r.overlap);
  const canvas = h('canvas.lanes', { tabindex: 0, title: 'wheel or + / - to zoom, drag or arrows to pan, 0 to reset', role: 'img', 'aria-label': `${f.lanes.length} GPU streams over ${dur(f.span_us)}` +
    ovRows.map((r) => `; device ${r.overlap.device}: two or more streams busy in ${r.overlap.bins} of ${f.bins} bins`).join('') });
  const tip = h('div.tip', { hidden: true });
  // The shown time range, in bins: wheel zooms around the pointer, drag pans,
  // the keyboard (canvas focused) zooms with + and -, pans with the arrows,
  // 0 resets. The resolution is the artifact's bins (f.bins over the span).
  const view = { a: 0, b: f.bins };
  const binAt = (x) => { const plotW = canvas.clientWidth - LABEL - 4; return view.a + ((x - LABEL) / plotW) * (view.b - view.a); };
  const setView = (a, b) => {
    const w = Math.min(f.bins, Math.max(MIN_BINS, b - a));
    a = Math.max(0, Math.min(f.bins - w, a));
    view.a = a; view.b = a + w;
    const us = f.span_us / f.bins;
    canvas.dataset.view = `${(view.a * us).toFixed(3)}-${(view.b * us).toFixed(3)}`;
    redraw();
  };
  const zoom = (factor, at) => setView(at - (at - view.a) * factor, at + (view.b - at) * factor);
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) { const d = (e.deltaX || e.deltaY) / r.width * (view.b - view.a); setView(view.a + d, view.b + d); return; }
    zoom(e.deltaY < 0 ? 0.8 : 1.25, binAt(e.clientX - r.left));
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, a: view.a, b: view.b }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointerup', () => { drag = null; });
  canvas.addEventListener('keydown', (e) => {
    const mid = (view.a + view.b) / 2, step = (view.b - view.a) * 0.2;
    const k = { '+': () => zoom(0.8, mid), '=': () => zoom(0.8, mid), '-': () => zoom(1.25, mid), ArrowLeft: () => setView(view.a - step, view.b - step), ArrowRight: () => setView(view.a + step, view.b + step), 0: () => setView(0, f.bins) }[e.key];
    if (k) { e.preventDefault(); k(); }
  });
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    if (drag) { const d = ((drag.x - e.clientX) / (r.width - LABEL - 4)) * (drag.b - drag.a); setView(drag.a + d, drag.b + d); return; }
    const row = rows[Math.floor((y - AXIS) / ROW)];
    const b = Math.floor(binAt(x));
    if (!row || y < AXIS || b < 0 || b >= f.bins) { tip.hidden = true; return; }
    const t0 = (b / f.bins) * f.span_us, t1 = ((b + 1) / f.bins) * f.span_us;
    tip.textContent = row.lane
      ? `device ${row.lane.device} stream ${row.lane.stream} · ${dur(t0)}–${dur(t1)} · busy ${pct(row.lane.busy[b], 0)}`
      : `device ${row.overlap.device} · ${dur(t0)}–${dur(t1)} · ${row.overlap.n[b]} streams active` +
        (row.overlap.sure[b] > 0 ? ` · ≥ 2 busy for at least ${pct(row.overlap.sure[b], 0)} of the bin` : row.overlap.n[b] >= 2 ? ' · may overlap' : '');
    tip.hidden = false;
    tip.style.left = `${Math.min(x + 12, r.width - 360)}px`;
    tip.style.top = `${y + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  function redraw() { drawLanes(canvas, f, rows, view); }
  new ResizeObserver(redraw).observe(canvas);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', redraw);

  const mean = (a) => a.reduce((s, v) => s + v, 0) / (a.length || 1);
  return h('div.lanefile', [
    h('h3', h('span.mono', { title: f.file }, f.file.split(/[\\/]/).pop()), h('span.dim', ` · span ${dur(f.span_us)} · ${f.bins} bins of ${dur(f.span_us / f.bins)}`),
      ovRows.map((r) => h('span.dim.ovnote', { title: `two or more streams active in ${r.overlap.active} bins; in ${r.overlap.bins} their busy fractions add up past 1, so they certainly overlapped for at least the excess` },
        ` · device ${r.overlap.device}: streams overlap ≥ ${dur(r.overlap.us)} (${pct(r.overlap.us / f.span_us)} of the span)`))),
    h('div.lanewrap', canvas, tip),
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

export function renderLanes(gl) {
  if (!gl?.files?.length) return null;
  return section('lanes', 'GPU streams',
    gl.files.some((f) => new Set(f.lanes?.map((l) => l.device)).size < (f.lanes?.length ?? 0)) &&
      h('p.dim', 'Blue: busy fraction per bin. Overlap row (orange): bins where two or more streams of a device were certainly busy together (busy fractions adding up past 1; darker = more), also shaded behind the lanes; faint: ≥ 2 streams active, possibly overlapping.'),
    gl.files.map(laneFile));
}
