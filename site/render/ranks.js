// Several ranks of one job, apart: breakdown.json `ranks` (per-rank kernel
// and collective time), a rank selector over each rank's own artifacts
// (ranks/<rank>/…: its breakdown, timeline and idle), the rank × step
// lateness heatmap (ranks.json `steps`, a stall marked in its cell), the stalls
// (ranks.json `stalls`: late arrivals past the rank's usual offset, which a
// stall below the natural skew never shows in the raw figures) and the
// collectives table (collectives.json, sortable by skew and busbw). The selection lives in the
// URL fragment (`rank=N`), beside whatever else the fragment holds.
import { h, section, artifactJSON } from './dom.js';
import { dur, int, pct, bytes } from './format.js';
import { dataTable } from './table.js';
import { renderBreakdown } from './breakdown.js';
import { renderTimeline } from './timeline.js';
import { renderIdle } from './idle.js';

/**
 * @param {object} bd breakdown.json
 * @param {{result?: object, a?: (name: string) => any}} [ctx] the module's result and its artifact cache
 */
export function renderRanks(bd, ctx = {}) {
  const get = ctx.a ?? ((n) => (ctx.result ? artifactJSON(ctx.result, n) : null));
  const rk = bd?.ranks;
  const co = get('collectives.json');
  const rj = get('ranks.json');
  const own = ownRanks(ctx.result);
  if (!rk?.rows?.length && !co?.rows?.length && !own.length) return null;
  return section('ranks', 'Ranks',
    rj?.straggler?.reason && h('p.straggler', h('b', 'Across ranks: '), rj.straggler.reason),
    rj?.steps?.some((s) => s.late_ranks?.length) && alsoLate(rj.steps),
    rk?.rows?.length > 0 && rankTable(rk),
    own.length > 1 && rankSelector(own, get),
    rj?.stalls?.length > 0 && stallsTable(rj.stalls),
    rj?.steps?.length > 0 && heatmap(rj),
    co?.rows?.length > 0 && collectivesTable(co),
  );
}

function rankTable(rk) {
  const max = Math.max(...rk.rows.map((r) => r.kernel_time_us), 1e-9);
  return [
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
  ];
}

/** The ranks with their own artifacts (ranks/<rank>/breakdown.json), ascending. */
export function ownRanks(result) {
  const ids = new Set();
  for (const a of result?.artifacts ?? []) {
    const m = /^ranks\/(\d+)\/breakdown\.json$/.exec(a.name);
    if (m) ids.add(Number(m[1]));
  }
  return [...ids].sort((x, y) => x - y);
}

/** The fragment's rank=…: a rank id, or null for all ranks. */
export function fragmentRank(hash = globalThis.location?.hash ?? '') {
  const m = /(?:^#|&)rank=(\d+)(?:&|$)/.exec(hash);
  return m ? Number(m[1]) : null;
}

/** The fragment with rank=… set (null: removed), other parameters kept. */
export function withRank(hash, rank) {
  const parts = hash.replace(/^#/, '').split('&').filter((p) => p && !p.startsWith('rank=') && p.includes('='));
  if (rank != null) parts.push(`rank=${rank}`);
  return parts.length ? `#${parts.join('&')}` : '';
}

function rankSelector(ids, get) {
  const view = h('div.rankview', { 'aria-live': 'polite' });
  const sel = h('select#rank-select', { 'aria-label': 'rank' },
    h('option', { value: '' }, 'all ranks'),
    ids.map((r) => h('option', { value: String(r) }, `rank ${r}`)));
  const show = (rank) => {
    sel.value = rank == null ? '' : String(rank);
    view.dataset.rank = rank == null ? 'all' : String(rank);
    if (rank == null) {
      const fr = get('profile_metadata.json')?.figures_rank;
      const above = fr != null ? `the sections above are rank ${fr}'s own figures (never a sum over the ranks)` : 'the sections above sum every rank\'s GPU ops';
      view.replaceChildren(h('p.dim', `All ${ids.length} ranks: ${above}; the tables here compare the ranks. Pick a rank to see its own breakdown, timeline and idle time (ranks/<rank>/ in the export).`));
      return;
    }
    const dir = `ranks/${rank}/`;
    if (!get(`${dir}breakdown.json`)) {
      // past limits.RankDirs a rank has no folder (breakdown.json ranks.summarised_ranks)
      view.replaceChildren(h('p.dim', `Rank ${rank} is summarised: its row is in the tables here, but only the lowest ranks have their own artifacts (limits.RankDirs); analyse its trace alone for its breakdown, timeline and idle time.`));
      return;
    }
    const parts = [
      renderBreakdown(get(`${dir}breakdown.json`)),
      renderTimeline(get(`${dir}gpu_timeline.json`)),
      renderIdle(get(`${dir}idle.json`), get(`${dir}launch_stats.json`)),
    ].filter(Boolean);
    // Their own ids would repeat the report's sections': prefixed, and
    // titled with the rank.
    for (const p of parts) {
      p.id = `rank-${p.id}`;
      p.classList.add('rankpart');
      const t = p.querySelector('h2');
      if (t) t.textContent = `Rank ${rank}: ${t.textContent}`;
    }
    view.replaceChildren(...parts);
  };
  const initial = fragmentRank();
  show(ids.includes(initial) ? initial : null);
  sel.addEventListener('change', () => {
    const rank = sel.value === '' ? null : Number(sel.value);
    show(rank);
    const hash = withRank(location.hash, rank);
    history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
  });
  globalThis.addEventListener?.('hashchange', () => {
    const r = fragmentRank();
    if (sel.isConnected && (r == null || ids.includes(r)) && String(r ?? '') !== sel.value) show(r);
  });
  return h('div.rankpick', h('div.toolbar', h('label', 'show ', sel)), view);
}

const HEAT_STEPS = 200;

/** Rank × step: the lateness each rank caused in each step (ranks.json steps). */
function heatmap(rj) {
  const ids = rj.rank_ids ?? [];
  const steps = rj.steps.slice(0, HEAT_STEPS);
  let max = 0;
  for (const s of steps) for (const v of s.lateness_by_rank_us ?? []) max = Math.max(max, v);
  return h('div.heatwrap', [
    h('h3', 'Lateness caused, rank × step'),
    h('p.dim', 'Each cell: the arrival skew of the step\'s collectives that the rank reached last (the others waited that long for it). The step\'s straggler is outlined; a rank also late at its collective is dotted.' +
      (rj.steps.length > HEAT_STEPS ? ` First ${HEAT_STEPS} of ${int(rj.steps.length)} steps.` : '')),
    h('div.tablewrap', h('table.heat', [
      h('thead', h('tr', h('th', { scope: 'col' }, 'rank'), steps.map((s) => h('th.step', { scope: 'col', title: s.step }, s.step)))),
      h('tbody', ids.map((r, i) => h('tr', { dataset: { heatRank: r } }, h('th', { scope: 'row' }, String(r)), steps.map((s) => {
        const v = s.lateness_by_rank_us?.[i] ?? 0;
        const lead = s.straggler_rank === r;
        const stall = s.stall_rank === r;
        const also = s.late_ranks?.find((l) => l.rank === r);
        return h(`td.cell${lead ? '.lead' : ''}${stall ? '.stall' : ''}${also ? '.late' : ''}`, {
          title: `rank ${r} · ${s.step}: ${dur(v)}${lead ? ` — straggler, worst at ${s.collective}` : ''}` +
            (stall ? ` — stall at ${s.stall_collective}, ${dur(s.stall_excess_us)} past its usual arrival` : '') +
            (also ? ` — also late at ${s.collective}, ${dur(also.lateness_us)} behind the earliest peer` : ''),
          style: { '--heat': max > 0 ? (v / max).toFixed(3) : '0' },
        }, '');
      })))),
    ])),
  ]);
}

/** "rank 2 (9.04 ms)": ranks.json late_ranks in prose. */
function lateText(late) {
  return (late ?? []).map((l) => `rank ${l.rank} (${dur(l.lateness_us)})`).join(', ');
}

const ALSO_LATE = 8;

/** The steps where a rank besides the straggler made its peers wait at the straggler's collective. */
function alsoLate(steps) {
  const rows = steps.filter((s) => s.late_ranks?.length);
  return h('p.alsolate', h('b', 'Also late: '),
    rows.slice(0, ALSO_LATE).map((s) => `${s.step}: ${lateText(s.late_ranks)} at ${s.collective}, besides rank ${s.straggler_rank}`).join('; ') +
    (rows.length > ALSO_LATE ? `; … ${rows.length - ALSO_LATE} more steps in ranks.json` : '') +
    ' (behind the earliest peer: making only the straggler faster would leave its peers waiting for them).');
}

/** One row per stall: a late arrival past the rank's usual offset at that collective, or by extra GPU work. */
function stallsTable(stalls) {
  return h('div.stalls', [
    h('h3', `Stalls (${int(stalls.length)})`),
    h('p.dim', 'A rank that arrived at a collective later than it usually does, by more than its own variation, or late because its GPU ran far more work before it than its peers: one late launch or extra work before one layer, named even when it is smaller than the natural skew. Marked ◆ in the heatmap.'),
    h('div.tablewrap', h('table.nums.stalls', [
      h('thead', h('tr', ['rank', 'step', 'collective', 'past usual', 'threshold', 'skew', 'also late', 'why'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', stalls.map((st) => h('tr', { dataset: { stallRank: st.rank } }, [
        h('td.num', String(st.rank)),
        h('td.mono', st.step ?? ''),
        h('td.mono', st.collective),
        h('td.num', dur(st.excess_us)),
        h('td.num', dur(st.threshold_us)),
        h('td.num', dur(st.skew_us)),
        h('td', lateText(st.late_ranks)),
        h('td', st.reason ?? ''),
      ]))),
    ])),
  ]);
}

const COLL_COLS = [
  { key: 'name', label: 'collective', cls: 'mono', text: true, w: 150, get: (r) => `${r.kind} #${r.index}` },
  { key: 'pg', label: 'group', cls: 'mono', text: true, w: 110, get: (r) => [r.pg, r.pg_desc].filter(Boolean).join(' ') },
  { key: 'step', label: 'step', cls: 'mono', text: true, w: 120, optional: true },
  { key: 'skew_us', label: 'skew', cls: 'num', fmt: dur, w: 80 },
  { key: 'last_rank', label: 'last rank', cls: 'num', fmt: (v) => String(v), w: 70 },
  { key: 'transfer_us', label: 'transfer', cls: 'num', fmt: dur, w: 80 },
  { key: 'bytes', label: 'bytes', cls: 'num', fmt: bytes, w: 80 },
  { key: 'busbw_gbps', label: 'busbw GB/s', cls: 'num', fmt: (v) => v.toFixed(1), w: 90 },
  { key: 'busbw_of_peak', label: 'of link', cls: 'num', fmt: (v) => pct(v), w: 70, optional: true },
];

function collectivesTable(co) {
  const t = dataTable({
    name: 'collectives', rows: co.rows, cols: COLL_COLS, sort: 'skew_us', tableClass: 'collectives',
    placeholder: 'filter collectives', tops: [25, 100, 0],
    search: (r) => [r.kind, r.pg, r.pg_desc, r.step, `#${r.index}`, `rank ${r.last_rank}`],
  });
  return h('div.colls', [
    h('h3', `Collectives matched across ranks (${int(co.rows.length)})`),
    h('p.dim', 'skew = latest start − earliest start; transfer = earliest end − latest start; busbw = bytes / transfer × NCCL\'s factor' +
      (co.link ? ` (link peak ${co.link.gbps} GB/s, ${co.link.fabric})` : '') + '. Sort by skew or busbw.'),
    t.toolbar, t.wrap,
    co.notes?.length > 0 && h('p.dim', co.notes.join(' · ')),
  ]);
}
