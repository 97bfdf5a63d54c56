// roofline.json: achieved TFLOP/s against arithmetic intensity per op
// signature, log-log, under the device's roofs, plus the rows as a table.
// The SVG is built with DOM calls and every op name or shape enters as text.
import { h, svg, section } from './dom.js';
import { dur, int, pct } from './format.js';
import { dataTable } from './table.js';

const W = 720, H = 360, L = 56, R = 16, T = 14, B = 40;

const num = (d) => (v) => (v == null ? '' : Number(v).toFixed(d));

const COLS = [
  { key: 'op', label: 'op', cls: 'mono kname', text: true, w: 180, grow: true },
  { key: 'stage', label: 'stage', cls: 'mono', text: true, multiStage: true, w: 70 },
  { key: 'dims', label: 'input dims', cls: 'mono', text: true, get: (r) => (r.input_dims ? JSON.stringify(r.input_dims) : null), w: 190 },
  { key: 'dtype', label: 'dtype', cls: 'mono', text: true, w: 56 },
  { key: 'instances', label: 'inst.', cls: 'num', fmt: int, w: 56 },
  { key: 'kernel_time_us', label: 'GPU time', cls: 'num', fmt: dur, w: 84 },
  { key: 'achieved_tflops', label: 'TFLOP/s', cls: 'num', fmt: num(1), w: 72 },
  { key: 'achieved_gbps', label: 'GB/s', cls: 'num', fmt: num(0), w: 60 },
  { key: 'arithmetic_intensity', label: 'FLOP/B', cls: 'num', fmt: num(1), w: 68 },
  { key: 'bound', label: 'bound', cls: 'mono', text: true, w: 100 },
  { key: 'efficiency', label: 'of roof', cls: 'num', fmt: (v) => pct(v), w: 64 },
  { key: 'cpu_op', label: 'modelled op', cls: 'mono', text: true, optional: true, w: 130 },
  { key: 'python_location', label: 'Python', cls: 'mono', text: true, optional: true, fmt: (v) => v.split('/').pop(), w: 150 },
  { key: 'note', label: 'note', cls: 'dim', text: true, optional: true, w: 160 },
];

const log = Math.log10;

function chart(rl, stageTime) {
  const dev = rl.device;
  const pts = rl.rows.filter((r) => r.achieved_tflops > 0 && r.arithmetic_intensity > 0);
  if (!pts.length) return null;
  const peaks = dev ? Object.entries(dev.peak_tflops ?? {}) : [];
  const used = new Set(pts.map((r) => r.dtype));
  // Roofs of the dtypes the plotted ops use (else bf16).
  const roofs = peaks.filter(([k]) => used.has(k));
  if (!roofs.length && dev?.peak_tflops?.bf16) roofs.push(['bf16', dev.peak_tflops.bf16]);
  const bw = dev?.peak_gbps ?? 0;
  const xs = pts.map((r) => r.arithmetic_intensity);
  const ys = pts.map((r) => r.achieved_tflops);
  for (const [, p] of roofs) if (bw > 0) xs.push((p * 1e3) / bw);
  const x0 = Math.floor(log(Math.min(...xs)) - 0.3), x1 = Math.ceil(log(Math.max(...xs)) + 0.3);
  const y0 = Math.floor(log(Math.min(...ys)) - 0.3);
  const y1 = Math.ceil(log(Math.max(...ys, ...roofs.map(([, p]) => p))) + 0.1);
  const px = (v) => L + ((log(v) - x0) / (x1 - x0)) * (W - L - R);
  const py = (v) => T + (1 - (log(v) - y0) / (y1 - y0)) * (H - T - B);
  const g = [];
  for (let e = x0; e <= x1; e++) {
    const x = px(10 ** e);
    g.push(svg('line.rl-grid', { x1: x, x2: x, y1: T, y2: H - B }), svg('text.rl-tick', { x, y: H - B + 14, 'text-anchor': 'middle' }, `1e${e}`));
  }
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    g.push(svg('line.rl-grid', { x1: L, x2: W - R, y1: y, y2: y }), svg('text.rl-tick', { x: L - 6, y: y + 4, 'text-anchor': 'end' }, `1e${e}`));
  }
  g.push(svg('text.rl-axis', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle' }, 'arithmetic intensity (FLOP/byte)'));
  g.push(svg('text.rl-axis', { x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})` }, 'achieved TFLOP/s'));
  if (bw > 0) {
    for (const [k, p] of roofs) {
      const ridge = (p * 1e3) / bw;
      const xa = 10 ** x0, xb = 10 ** x1;
      const ya = (xa * bw) / 1e3;
      g.push(svg('polyline.rl-roof', { points: `${px(xa)},${py(Math.max(ya, 10 ** y0))} ${px(ridge)},${py(p)} ${px(xb)},${py(p)}` },
        svg('title', `${k} roof: ${p} TFLOP/s, ${bw} GB/s, ridge ${ridge.toFixed(0)} FLOP/byte`)));
      g.push(svg('text.rl-roof-label', { x: W - R - 4, y: py(p) - 4, 'text-anchor': 'end' }, `${k} ${p} TFLOP/s`));
    }
  }
  for (const r of pts) {
    const share = stageTime[r.stage] > 0 ? r.kernel_time_us / stageTime[r.stage] : 0;
    const rad = 3 + Math.sqrt(share) * 14;
    g.push(svg(`circle.rl-pt.${r.bound === 'memory' ? 'rl-mem' : 'rl-cmp'}`, { cx: px(r.arithmetic_intensity), cy: py(r.achieved_tflops), r: rad },
      svg('title', `${r.op} ${r.input_dims ? JSON.stringify(r.input_dims) : ''}\n${r.achieved_tflops} TFLOP/s · ${r.arithmetic_intensity} FLOP/B · ${r.bound ?? ''} · ${pct(r.efficiency)} of roof · ${dur(r.kernel_time_us)}`)));
  }
  return svg('svg.roofline', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'roofline: achieved TFLOP/s against arithmetic intensity' }, g);
}

export function renderRoofline(rl) {
  if (!rl?.rows?.length) return null;
  const stageTime = Object.fromEntries((rl.stages ?? []).map((s) => [s.stage, s.kernel_time_us]));
  const dev = rl.device;
  const roofText = dev
    ? `${dev.name || 'roofs'}${dev.overridden ? ' (overridden)' : ''}: ${Object.entries(dev.peak_tflops ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')} TFLOP/s; ${dev.peak_gbps} GB/s`
    : 'device not in the peak table: no roofs (pass --peak-tflops / --peak-gbps)';
  const cover = (rl.stages ?? []).map((s) => `${s.stage}: ${pct(s.kernel_time_us > 0 ? s.modelled_us / s.kernel_time_us : 0)} of GPU time modelled` +
    (s.graph_replayed_us > 0 ? `, ${pct(s.graph_mapped_us / s.kernel_time_us)} via the mapping trace` : ''));
  const bytesOnly = rl.rows.filter((r) => r.flops === 0).length;
  const t = dataTable({
    name: 'roofline', rows: rl.rows, cols: COLS, sort: 'kernel_time_us', tableClass: 'roofline',
    placeholder: 'filter ops', search: (r) => [r.op, r.cpu_op, r.python_location, r.bound, r.dtype, r.stage, r.note],
  });
  return section('roofline', 'Roofline',
    h('p.dim', roofText),
    dev?.source ? h('p.dim', `source: ${dev.source}`) : null,
    h('p.dim', cover.join(' · ')),
    chart(rl, stageTime),
    bytesOnly ? h('p.dim', `${bytesOnly} memory-only ops (no FLOPs) are not plotted; they are in the table.`) : null,
    t.toolbar, t.wrap);
}
