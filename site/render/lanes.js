// Per-stream lane view from gpu_lanes.json: each lane is the busy fraction of
// N equal time bins over the file's GPU span, drawn as a heat strip. Fixed
// size whatever the trace size, so drawing is instant.
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';

const ROW = 16;
const AXIS = 18;
const LABEL = 190;

function css(el, name) {
  return getComputedStyle(el).getPropertyValue(name).trim();
}

function drawLanes(canvas, f) {
  const w = canvas.clientWidth;
  if (!w) return;
  const dpr = window.devicePixelRatio || 1;
  const hgt = AXIS + f.lanes.length * ROW + 2;
  canvas.style.height = `${hgt}px`;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(hgt * dpr);
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  const fg = css(canvas, '--fg'), dim = css(canvas, '--dim'), grid = css(canvas, '--grid'),
    busy = css(canvas, '--lane'), bg = css(canvas, '--lane-bg');
  const plotW = w - LABEL - 4;
  g.clearRect(0, 0, w, hgt);
  // Generic family only: resolving the CSS font list for canvas costs
  // font-matching round trips on first draw.
  g.font = '11px monospace';
  g.textBaseline = 'middle';

  // Time axis: ~8 ticks at round numbers.
  const span = f.span_us;
  const step = niceStep(span / 8);
  g.fillStyle = dim;
  g.strokeStyle = grid;
  for (let t = 0; t <= span + 1e-9 && step > 0; t += step) {
    const x = LABEL + (t / span) * plotW;
    g.fillRect(Math.round(x), AXIS - 4, 1, hgt - AXIS + 4);
    g.fillText(t ? dur(t) : '0', Math.min(x + 2, w - 48), AXIS / 2);
  }

  const bw = plotW / f.bins;
  f.lanes.forEach((l, i) => {
    const y = AXIS + i * ROW;
    g.fillStyle = fg;
    g.fillText(`dev ${l.device} · s ${l.stream}`, 4, y + ROW / 2);
    g.fillStyle = dim;
    g.fillText(int(l.ops), LABEL - 8 - g.measureText(int(l.ops)).width, y + ROW / 2);
    g.fillStyle = bg;
    g.fillRect(LABEL, y + 2, plotW, ROW - 4);
    g.fillStyle = busy;
    for (let b = 0; b < l.busy.length; b++) {
      const v = l.busy[b];
      if (v <= 0) continue;
      // Opacity encodes the busy fraction; a floor keeps short blips visible.
      g.globalAlpha = 0.15 + 0.85 * v;
      g.fillRect(LABEL + b * bw, y + 2, Math.max(bw, 1), ROW - 4);
    }
    g.globalAlpha = 1;
  });
}

function niceStep(x) {
  if (!(x > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

function laneFile(f) {
  if (!f.lanes?.length) return h('div.lanefile', h('h3.mono', f.file), h('p.dim', 'no GPU activity'));
  const canvas = h('canvas.lanes', { role: 'img', 'aria-label': `${f.lanes.length} GPU streams over ${dur(f.span_us)}` });
  const tip = h('div.tip', { hidden: true });
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const lane = f.lanes[Math.floor((y - AXIS) / ROW)];
    const plotW = r.width - LABEL - 4;
    const b = Math.floor(((x - LABEL) / plotW) * f.bins);
    if (!lane || y < AXIS || b < 0 || b >= f.bins) { tip.hidden = true; return; }
    const t0 = (b / f.bins) * f.span_us, t1 = ((b + 1) / f.bins) * f.span_us;
    tip.textContent = `device ${lane.device} stream ${lane.stream} · ${dur(t0)}–${dur(t1)} · busy ${pct(lane.busy[b], 0)}`;
    tip.hidden = false;
    tip.style.left = `${Math.min(x + 12, r.width - 320)}px`;
    tip.style.top = `${y + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  const redraw = () => drawLanes(canvas, f);
  new ResizeObserver(redraw).observe(canvas);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', redraw);

  const mean = (a) => a.reduce((s, v) => s + v, 0) / (a.length || 1);
  return h('div.lanefile', [
    h('h3', h('span.mono', { title: f.file }, f.file), h('span.dim', ` · span ${dur(f.span_us)} · ${f.bins} bins of ${dur(f.span_us / f.bins)}`)),
    h('div.lanewrap', canvas, tip),
    h('details', [
      h('summary', 'lane numbers'),
      h('table.nums', [
        h('thead', h('tr', ['device', 'stream', 'ops', 'mean busy'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', f.lanes.map((l) => h('tr', h('td.num', l.device), h('td.num', l.stream), h('td.num', int(l.ops)), h('td.num', pct(mean(l.busy)))))),
      ]),
    ]),
  ]);
}

export function renderLanes(gl) {
  if (!gl?.files?.length) return null;
  return section('lanes', 'GPU streams', gl.files.map(laneFile));
}
