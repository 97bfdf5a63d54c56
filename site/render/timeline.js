// gpu_timeline.json: where the GPU's wall time went, per trace file.
import { h, section } from './dom.js';
import { dur, pct } from './format.js';

const PARTS = [
  ['computation_time_us', 'computation', 'tl-comp'],
  ['exposed_comm_time_us', 'exposed comm', 'tl-comm'],
  ['exposed_memcpy_time_us', 'exposed memcpy', 'tl-mem'],
  ['idle_time_us', 'idle', 'tl-idle'],
];
const ROWS = [
  ['total_time_us', 'total'],
  ['busy_time_us', 'busy'],
  ['computation_time_us', 'computation'],
  ['exposed_comm_time_us', 'exposed comm'],
  ['exposed_memcpy_time_us', 'exposed memcpy'],
  ['idle_time_us', 'idle'],
  ['total_comm_time_us', 'total comm'],
  ['total_memcpy_time_us', 'total memcpy'],
];

function one(t) {
  const total = t.total_time_us || 0;
  return h('div.tl', [
    t.file && h('h3.mono', { title: t.file }, t.file),
    t.window && h('p.dim', `window: ${t.window}`),
    h('div.stack.tlbar', { role: 'img', 'aria-label': PARTS.map(([k, l]) => `${l} ${pct(t[k] / total)}`).join(', ') },
      PARTS.map(([k, l, c]) => total > 0 && t[k] > 0 &&
        h(`span.${c}`, { title: `${l} ${dur(t[k])} · ${pct(t[k] / total)}`, style: { width: `${(t[k] / total) * 100}%` } }))),
    h('table.nums', h('tbody', ROWS.map(([k, l]) => h('tr', [
      h('th', { scope: 'row' }, PARTS.find((p) => p[0] === k) ? h(`i.sw.${PARTS.find((p) => p[0] === k)[2]}`) : null, l),
      h('td.num', dur(t[k])),
      h('td.num.dim', k === 'total_time_us' ? '' : pct(t[k] / total)),
    ])))),
  ]);
}

export function renderTimeline(tl) {
  if (!tl) return null;
  const files = tl.files?.length ? tl.files : [tl];
  return section('timeline', 'GPU timeline', h('div.tls', files.map(one)));
}
