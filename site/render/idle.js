// idle.json + launch_stats.json: why the GPU idles (busy / host-bound /
// device-side split per window, the host code that ran while it starved,
// syncs, the longest device-side waits) and the launch statistics.
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';

const PARTS = [
  ['gpu_busy_us', 'busy', 'tl-comp'],
  ['host_bound_us', 'host-bound', 'tl-comm'],
  ['device_side_us', 'device-side', 'tl-mem'],
  ['unknown_us', 'unclassified', 'tl-idle'],
];

function windowView(w) {
  const total = w.window_us || 0;
  const title = w.kind === 'steps' ? `${int(w.steps)} step windows` : `${w.window}`;
  return h('div.tl', [
    h('h3', title),
    h('p.dim', `window ${dur(total)} · GPU idle ${pct(total ? w.gpu_idle_us / total : 0)} · host-bound ${pct(w.host_bound_share)} of classified idle` +
      (w.outside_steps_us ? ` · ${dur(w.outside_steps_us)} of the idle lies between steps` : '')),
    h('div.stack.tlbar', { role: 'img', 'aria-label': PARTS.map(([k, l]) => `${l} ${pct(w[k] / total)}`).join(', ') },
      PARTS.map(([k, l, c]) => total > 0 && w[k] > 0 &&
        h(`span.${c}`, { title: `${l} ${dur(w[k])} · ${pct(w[k] / total)}`, style: { width: `${(w[k] / total) * 100}%` } }))),
    h('table.nums', h('tbody', PARTS.map(([k, l, c]) => h('tr', [
      h('th', { scope: 'row' }, h(`i.sw.${c}`), l),
      h('td.num', dur(w[k])),
      h('td.num.dim', pct(total ? w[k] / total : 0)),
    ])))),
    w.culprits?.length ? h('table.data', [
      h('caption.dim', 'host code running while the GPU waited for it (sampled every 1 µs)'),
      h('thead', h('tr', ['Python frame', 'CPU op', 'time', 'of host-bound'].map((t, i) => h(i > 1 ? 'th.num' : 'th', { scope: 'col' }, t)))),
      h('tbody', w.culprits.map((c) => h('tr', [
        h('td.mono', { title: c.frame ?? '' }, c.frame ?? '—'),
        h('td.mono', { title: c.cpu_op ?? '' }, c.cpu_op ?? '—'),
        h('td.num', dur(c.us)),
        h('td.num', pct(c.share)),
      ]))),
    ]) : null,
  ]);
}

function syncs(list) {
  if (!list?.length) return null;
  return h('table.data', [
    h('caption.dim', 'synchronizing host calls'),
    h('thead', h('tr', ['call', 'calls', 'host time', 'GPU idle meanwhile'].map((t, i) => h(i ? 'th.num' : 'th', { scope: 'col' }, t)))),
    h('tbody', list.map((s) => h('tr', [h('td.mono', s.call), h('td.num', int(s.calls)), h('td.num', dur(s.host_us)), h('td.num', dur(s.gpu_idle_during_us))]))),
  ]);
}

function waits(list) {
  if (!list?.length) return null;
  return h('table.data', [
    h('caption.dim', 'longest device-side waits (the op was submitted, the GPU idled anyway)'),
    h('thead', h('tr', ['op', 'wait', 'submitted before start', 'after', 'host blocked in'].map((t, i) => h(i === 1 || i === 2 ? 'th.num' : 'th', { scope: 'col' }, t)))),
    h('tbody', list.map((w) => h('tr', [
      h('td.mono', { title: w.op }, w.op.length > 90 ? `${w.op.slice(0, 89)}…` : w.op),
      h('td.num', dur(w.device_side_us)),
      h('td.num', dur(w.submitted_before_start_us)),
      h('td.mono', w.after_call ?? '—'),
      h('td.mono', w.host_blocked_in ?? '—'),
    ]))),
  ]);
}

function launchView(ls) {
  if (!ls) return null;
  const v = ls.verdict ?? {};
  const d = (x) => `${dur(x.p50_us)} / ${dur(x.p90_us)} / ${dur(x.p99_us)} / ${dur(x.max_us)}`;
  return h('div', [
    h('h3', 'Launch statistics'),
    h('p', h('strong', v.verdict ?? 'unknown'),
      ` — GPU idle ${pct(v.gpu_idle_share)}, host-bound ${pct(v.host_bound_share)} of it; ${pct(v.short_kernel_share)} of kernels (${pct(v.short_kernel_time_share)} of kernel time) under ${dur(ls.short_kernel_below_us)}; median kernel ${dur(v.kernel_p50_us)}, median launch call ${dur(v.launch_call_p50_us)}`),
    h('p.dim', `rule: ${v.rule ?? ''}`),
    h('table.data', [
      h('caption.dim', 'launch delay p50 / p90 / p99 / max (graph replay: one sample per replay, graph launch → its first op)'),
      h('thead', h('tr', ['category', 'ops', 'short kernels', 'graph-replayed', 'from call start', 'from call end', 'launch call'].map((t, i) => h(i ? 'th.num' : 'th', { scope: 'col' }, t)))),
      h('tbody', [ls.all, ...(ls.categories ?? [])].filter(Boolean).map((r) => h('tr', [
        h('td', r.category),
        h('td.num', int(r.ops)),
        h('td.num', r.kernels ? `${int(r.short_kernels)} (${pct(r.short_kernel_share)})` : '—'),
        h('td.num', int(r.graph_replayed)),
        h('td.num', r.delay_from_call_start?.n ? d(r.delay_from_call_start) : '—'),
        h('td.num', r.delay_from_call_end?.n ? d(r.delay_from_call_end) : '—'),
        h('td.num', r.launch_call?.n ? dur(r.launch_call.p50_us) : '—'),
      ]))),
    ]),
  ]);
}

/** @param {object|null} idle idle.json @param {object|null} ls launch_stats.json */
export function renderIdle(idle, ls) {
  if (!idle && !ls) return null;
  const wins = idle ? [...(idle.stages ?? []), idle.steps].filter((w) => w && w.window_us > 0) : [];
  return section('idle', 'Why the GPU idles',
    h('p.dim', 'host-bound: the next op\'s launch call had not returned when the GPU went idle; device-side: it had (event wait, dependency, launch latency).'),
    h('div.tls', wins.map(windowView)),
    idle && syncs(idle.syncs),
    idle && waits(idle.longest_device_waits),
    launchView(ls));
}
