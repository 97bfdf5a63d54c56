// breakdown.json `ranks` (several rank files analysed together): per-rank
// kernel and collective time. Collective time includes waiting, so the rank
// with the least is the one the others wait for.
import { h, section } from './dom.js';
import { dur, pct } from './format.js';

export function renderRanks(bd) {
  const rk = bd?.ranks;
  if (!rk?.rows?.length) return null;
  const max = Math.max(...rk.rows.map((r) => r.kernel_time_us), 1e-9);
  return section('ranks', 'Ranks',
    h('p.headline', `Rank ${rk.most_waiting_rank} spends the most time inside collectives (${dur(rk.collective_skew_us)} more than rank ${rk.slowest_rank}): ` +
      `it waits for rank ${rk.slowest_rank}, the slowest to reach each collective. Look at rank ${rk.slowest_rank}'s compute and host-side gaps first.`),
    h('table.nums.ranks', [
      h('thead', h('tr', ['rank', 'file', 'kernel time', 'compute | collective', 'collective', 'collective share', 'exposed comm', 'busy', ''].map((c) =>
        h('th', { scope: 'col' }, c)))),
      h('tbody', rk.rows.map((r) => h('tr', { dataset: { rank: r.rank } }, [
        h('td.num', String(r.rank)),
        h('td.mono.name', { title: r.file }, r.file.split(/[\\/]/).pop()),
        h('td.num', dur(r.kernel_time_us)),
        h('td.barcell', h('div.rankbar', { title: `non-collective ${dur(r.non_collective_kernel_time_us)} · collective ${dur(r.collective_time_us)}`, style: { width: `${(r.kernel_time_us / max) * 100}%` } }, [
          h('span.tl-comp', { style: { width: `${(r.non_collective_kernel_time_us / Math.max(r.kernel_time_us, 1e-9)) * 100}%` } }),
          h('span.tl-comm', { style: { width: `${(r.collective_time_us / Math.max(r.kernel_time_us, 1e-9)) * 100}%` } }),
        ])),
        h('td.num', dur(r.collective_time_us)),
        h('td.num', pct(r.collective_share)),
        h('td.num', dur(r.exposed_comm_time_us)),
        h('td.num', dur(r.busy_time_us)),
        h('td', [
          r.rank === rk.slowest_rank && h('span.badge.warn', { title: 'least time inside collectives: the others wait for it' }, 'slowest'),
          r.rank === rk.most_waiting_rank && h('span.badge.dim', { title: 'most time inside collectives' }, 'most waiting'),
        ]),
      ]))),
    ]),
    rk.note && h('p.dim', rk.note),
  );
}
