// Category (and provider) share of GPU kernel time, one block per stage.
// CSS bars, not a chart library: exact numbers beside every bar.
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';
import { catClass } from './colors.js';

function shareRows(items, key, colored) {
  const max = Math.max(...items.map((c) => c.share), 1e-9);
  return h('table.shares', h('tbody', items.map((c) => {
    const cls = colored ? catClass(c[key]) : 'neutral';
    return h('tr', [
      h('th.mono', { scope: 'row', title: c[key] }, h(`i.sw.${cls}`), c[key]),
      h('td.barcell', h(`div.bar.${cls}`, { style: { width: `${(c.share / max) * 100}%` } })),
      h('td.num', dur(c.gpu_time_us)),
      h('td.num', pct(c.share)),
    ]);
  })));
}

function stacked(items) {
  return h('div.stack', { role: 'img', 'aria-label': items.map((c) => `${c.category} ${pct(c.share)}`).join(', ') },
    items.filter((c) => c.share > 0).map((c) =>
      h(`span.${catClass(c.category)}`, { title: `${c.category} ${pct(c.share)} · ${dur(c.gpu_time_us)}`, style: { width: `${c.share * 100}%` } })));
}

export function renderBreakdown(bd) {
  if (!bd?.stages?.length) return null;
  for (const s of bd.stages) for (const c of s.categories) catClass(c.category);
  return section('breakdown', 'GPU time by category',
    h('p.dim', `CPU-op coverage ${pct(bd.cpu_op_coverage)}`,
      bd.python_coverage != null ? ` · Python-stack coverage ${pct(bd.python_coverage)}` : ''),
    h('div.stages', bd.stages.map((s) => h('div.stage', [
      h('h3', [h('span.mono', s.stage), h('span.dim', ` · ${s.stage_source}`)]),
      h('p.dim', `${int(s.kernel_count)} kernels · ${dur(s.kernel_time_us)} kernel time · window ${dur(s.window_us)} · avg parallelism ${s.avg_parallelism.toFixed(2)}`),
      stacked(s.categories),
      shareRows(s.categories, 'category', true),
      s.providers?.length > 0 && h('details', [
        h('summary', `providers (${s.providers.length})`),
        shareRows(s.providers, 'provider', false),
      ]),
    ]))),
  );
}
