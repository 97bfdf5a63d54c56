// overlap_opportunities.json (triage): the formal trace's stream overlap
// summary and the Overlap Opportunity Table — kernels still exposed on the
// critical stream (headroom) or already hidden by other streams
// (low-roi-hidden), with their Python scope through the mapping trace.
import { h, section } from './dom.js';
import { dataTable } from './table.js';
import { dur, int, pct } from './format.js';

const PRIO = { P1: 'bad', P2: 'warn', P3: 'info' };
const RISK = { low: 'ok', high: 'warn', unclear: 'dim' };

/** The code location the markdown shows: Python scope, else the launching op. */
export function scopeOf(r) {
  if (r.python_scope) return r.python_scope;
  if (r.launch_op) return `op: ${r.launch_op}`;
  return 'unmapped';
}

const base = (p) => (p ? p.split(/[\\/]/).pop() : p);

const COLS = [
  { key: 'stage', label: 'stage', cls: 'mono', text: true, multiStage: true },
  { key: 'priority', label: 'priority', cls: 'mono', text: true, cell: (r, v) => h(`span.badge.${PRIO[v] ?? 'dim'}`, v) },
  { key: 'verdict', label: 'verdict', cls: 'mono', text: true },
  { key: 'kernel', label: 'kernel', cls: 'mono kname', text: true,
    title: (r) => `${r.kernel}\n${r.category} · ${int(r.launches)} launches · mapped by ${r.mapped_by} (${pct(r.mapping_ratio, 0)})` },
  { key: 'scope', label: 'Python scope', cls: 'mono scope', text: true, get: scopeOf,
    title: (r) => [scopeOf(r), r.call_chain && `call chain: ${r.call_chain}`, r.op_chain && `op chain: ${r.op_chain}`].filter(Boolean).join('\n') },
  { key: 'total_us', label: 'formal signal (time · share · excl / hid)', cls: 'num signal',
    title: (r) => `${r.total_us} us, ${pct(r.share, 2)} of the stage's busy time; exclusive ${pct(r.exclusive_ratio)}, hidden ${pct(r.hidden_ratio)}` +
      (r.hidden_by ? ` (mostly by ${r.hidden_by}; by compute ${pct(r.hidden_by_compute_ratio)}, by communication ${pct(r.hidden_by_comm_ratio)})` : '') +
      (r.overlap_with ? `\noverlaps most with ${r.overlap_with} (${dur(r.overlap_with_us)})` : ''),
    cell: (r) => [dur(r.total_us), h('span.dim', ' · '), pct(r.share), h('span.dim', ' · '), `${pct(r.exclusive_ratio, 0)} / ${pct(r.hidden_ratio, 0)}`],
    tsv: (r) => `${r.total_us} us, ${pct(r.share)}, ${pct(r.exclusive_ratio)} / ${pct(r.hidden_ratio)}` },
  { key: 'dep_risk', label: 'dep risk', cls: 'mono', text: true,
    title: (r) => [r.dep_signal, r.prev_neighbor && `before: ${r.prev_neighbor}`, r.next_neighbor && `after: ${r.next_neighbor}`].filter(Boolean).join('\n'),
    cell: (r, v) => h(`span.badge.${RISK[v] ?? 'dim'}`, v) },
  { key: 'recommendation', label: 'recommendation', cls: 'rec', text: true, title: (r) => r.suggestion || r.recommendation },
];

const dur0 = (v) => (v ? dur(v) : '0 µs');

function kpi(label, value, title) {
  return h('div.kpi', { title }, h('span.kpi-v', value), h('span.kpi-l', label));
}

export function renderOverlap(ov) {
  if (!ov?.summary) return null;
  const s = ov.summary;
  const rows = ov.rows ?? [];
  const body = [];
  if (s.note) {
    body.push(h('p.dim', s.note));
  } else {
    body.push(h('div.kpis', [
      kpi('GPU busy', dur(s.busy_us), `union of all kernels, copies and fills on device ${s.device}`),
      kpi('≥ 2 streams busy', `${dur0(s.overlap_us)} · ${pct(s.overlap_share)}`, 'time with two or more streams busy, and its share of busy time'),
      kpi('peak streams', int(s.peak_streams), `concurrent streams at the busiest instant (streams ${(s.streams ?? []).join(', ')})`),
      kpi('comm ∩ compute', dur0(s.comm_compute_overlap_us), 'communication kernels overlapping other kernels'),
      kpi('mapping coverage', pct(s.mapping_coverage),
        `share of formal GPU time with a CPU op or Python scope: Python scope ${pct(s.python_coverage)}; direct ${pct(s.mapped_direct)}, by sequence ${pct(s.mapped_by_sequence)}, by name ${pct(s.mapped_by_name)}`),
      s.graph_replays > 0 && kpi('graph replays aligned', `${int(s.replays_aligned)} / ${int(s.graph_replays)}`,
        `${int(s.graph_kernels)} kernels replayed by ${int(s.graph_replays)} graph launches; replays whose kernel sequence equals their mapping step's exactly`),
    ]));
    body.push(h('p.dim.roles', [
      'formal ', h('span.mono', { title: s.formal_file }, base(s.formal_file)),
      ` · ${int(s.ops)} GPU ops on device ${s.device} · `,
      s.mapping_file ? ['mapping ', h('span.mono', { title: s.mapping_file }, base(s.mapping_file)),
        ` · ${int(s.mapping_kernels)} kernels in ${int(s.mapping_steps)} steps`] : 'no mapping trace',
    ]));
  }
  if (!rows.length) {
    body.push(h('p.dim', 'No actionable overlap row stood out.'));
  } else {
    const t = dataTable({
      name: 'overlap opportunities', rows, cols: COLS, sort: null, top: 0, tops: [0],
      search: (r) => [r.kernel, r.stage, r.priority, r.verdict, scopeOf(r), r.op_chain, r.call_chain, r.dep_risk, r.recommendation, r.category],
    });
    body.push(t.toolbar, t.wrap);
  }
  return section('overlap', 'Overlap opportunities', body);
}
