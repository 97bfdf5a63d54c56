// diff.json: two runs side by side — the comparability verdict and why,
// run A and run B, the total, the per-category and per-kernel deltas and the
// --fail-on gate. The downloads (diff.md, diff.json) are the export
// section's links: the module's bytes, the CLI's.
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';
import { catClass } from './colors.js';
import { middle } from './names.js';

const TOP_KERNELS = 10;

// distinctKernels counts kernels, not rows: a bounded diff.json sums its
// smallest changes into "(other kernels)" rows (kernels_truncated).
const distinctKernels = (d) => (d.kernels_truncated
  ? d.kernels.filter((k) => k.status !== 'merged').length + d.merged_kernels
  : d.kernels.length);

/** The verdict in one word, as diff.md's heading says it. */
export function diffVerdict(d) {
  if (d.refused) return 'REFUSED (not comparable)';
  if (d.regression) return 'REGRESSION';
  if (d.forced) return 'compared with --force (not comparable)';
  return 'ok';
}

const signed = (us) => `${us > 0 ? '+' : ''}${dur(us)}`;
const pp = (r) => `${r > 0 ? '+' : ''}${(r * 100).toFixed(1)} pp`;
const times = (r) => (r ? `${r.toFixed(2)}×` : '—');

function side(tag, s) {
  return h('div.side', [
    h('h3', [h('span.badge.dim', tag), ' ', h('span.mono', s.name)]),
    h('dl.kv', [
      h('dt', 'device'), h('dd', `${s.device_name || 'unnamed device'} · ${s.observed_arch || 'unknown'}`),
      h('dt', 'kernel time'), h('dd', dur(s.kernel_time_us)),
      h('dt', 'busy'), h('dd', dur(s.busy_us)),
      h('dt', 'GPU ops'), h('dd', `${int(s.launches)}${s.kernels != null ? ` of ${int(s.kernels)} kernels` : ''}`),
    ]),
  ]);
}

/**
 * The lead of the comparison for the verdict card: the verdict, why, and the
 * three largest category deltas.
 */
export function diffLead(d, force, swap) {
  const v = diffVerdict(d);
  const cls = d.refused ? 'warn' : d.regression ? 'bad' : d.forced ? 'warn' : 'ok';
  const cats = [...(d.categories ?? [])].sort((x, y) => Math.abs(y.delta_us) - Math.abs(x.delta_us)).slice(0, 3);
  return h('div.difflead', [
    h('p.headline', ['Run comparison (A → B): ', h(`span.badge.${cls}`, v)]),
    d.reason && h('p', d.reason),
    (force || swap) && h('p.toolbar', [
      force && d.refused && h('button#force', { type: 'button', onclick: force, title: 'compare anyway, as `gputriage diff --force`' }, 'Compare anyway (--force)'),
      swap && h('button#swap', { type: 'button', onclick: swap, title: 'run B becomes A: the deltas change sign' }, 'Swap A and B'),
    ]),
    !d.refused && d.total && h('p', `Kernel time ${dur(d.total.a_us)} → ${dur(d.total.b_us)} (${signed(d.total.delta_us)}, ${times(d.total.ratio)}); GPU ops ${int(d.total.a_launches)} → ${int(d.total.b_launches)}; ${int(d.new_kernels)} new and ${int(d.removed_kernels)} removed kernels.`),
    !d.refused && cats.length > 0 && h('ol.lead', cats.map((c) => h('li', [h(`i.sw.${catClass(c.category)}`), h('b', c.category), ` ${signed(c.delta_us)} (${dur(c.a_us)} → ${dur(c.b_us)}, share ${pp(c.delta_share)})`]))),
  ]);
}

export function renderDiff(d) {
  if (!d) return null;
  const kernels = [...(d.kernels ?? [])].sort((x, y) => Math.abs(y.delta_us) - Math.abs(x.delta_us)).slice(0, TOP_KERNELS);
  const failed = (d.gate ?? []).filter((g) => g.failed);
  return section('diff', 'Run comparison',
    h('div.sides', [side('A', d.a), side('B', d.b)]),
    d.gate?.length > 0 && h('div', [h('h4', `gate (--fail-on): ${failed.length ? `${failed.length} exceeded` : 'passed'}`),
      h('table.nums', [
        h('thead', h('tr', ['rule', 'measured', 'Δ', 'change', 'result'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', d.gate.map((g) => h('tr', [h('td.mono', g.rule), h('td', g.subject), h('td.num', signed(g.delta_us)), h('td.num', pct(g.change)), h(`td.${g.failed ? 'bad' : 'ok'}`, g.failed ? 'exceeded' : 'ok')]))),
      ])]),
    !d.refused && d.categories?.length > 0 && h('div.tablewrap.free', [h('h4', 'categories'), h('table.nums.diffcats', [
      h('thead', h('tr', ['category', 'A', 'B', 'Δ', 'B/A', 'share A', 'share B', 'Δ share'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', d.categories.map((c) => h('tr', [
        h('td.mono', h(`i.sw.${catClass(c.category)}`), c.category), h('td.num', dur(c.a_us)), h('td.num', dur(c.b_us)),
        h('td.num', signed(c.delta_us)), h('td.num', times(c.ratio)), h('td.num', pct(c.a_share)), h('td.num', pct(c.b_share)), h('td.num', pp(c.delta_share)),
      ]))),
    ])]),
    !d.refused && kernels.length > 0 && h('div.tablewrap.free', [h('h4', `kernels, largest |Δ| first (top ${kernels.length} of ${int(distinctKernels(d))}; ${d.kernels_truncated ? `the ${int(d.merged_kernels)} smallest changes summed per category in diff.json` : 'all in diff.md / diff.json'})`), h('table.nums.diffkernels', [
      h('thead', h('tr', ['kernel', 'category', 'status', 'A', 'B', 'Δ', 'launches A', 'launches B'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', kernels.map((k) => h('tr', [
        h('td.mono', middle(k.kernel, 70)), h('td.mono', k.category), h('td', k.status), h('td.num', dur(k.a_us)), h('td.num', dur(k.b_us)),
        h('td.num', signed(k.delta_us)), h('td.num', int(k.a_launches)), h('td.num', int(k.b_launches)),
      ]))),
    ])]),
  );
}
