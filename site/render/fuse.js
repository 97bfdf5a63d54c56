// fuse_opportunities.json (triage): kernel patterns worth fusing (unfused
// norms, elementwise chains between GEMMs, …), with the evidence kernels,
// where they are launched from, and the fused path to try.
import { h, section } from './dom.js';
import { dataTable } from './table.js';
import { dur, pct } from './format.js';

const CONF = { likely: 'ok', conditional: 'warn' };
const short = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const locations = (r) => (r.python_locations?.length ? r.python_locations
  : [...new Set((r.evidence_kernels ?? []).map((k) => k.python_location).filter(Boolean))]);

const COLS = [
  { key: 'stage', label: 'stage', cls: 'mono', text: true, multiStage: true },
  { key: 'pattern', label: 'pattern', cls: 'pattern wrap', text: true, title: (r) => `${r.pattern}${r.occurrences ? `\nseen ${r.occurrences} times` : ''}` },
  { key: 'confidence', label: 'confidence', cls: 'mono', text: true, cell: (r, v) => h(`span.badge.${CONF[String(v).toLowerCase()] ?? 'dim'}`, v) },
  { key: 'related_us', label: 'related GPU time', cls: 'num', fmt: dur, title: (r) => `${r.related_us} us` },
  { key: 'share', label: 'share', cls: 'num', fmt: (v) => pct(v) },
  { key: 'evidence', label: 'evidence kernels', cls: 'mono list ev', text: true,
    get: (r) => r.evidence_kernels?.[0]?.kernel ?? '',
    title: (r) => (r.evidence_kernels ?? []).map((k) => `${k.kernel} (${k.time_us} us${k.python_location ? `, ${k.python_location}` : ''})`).join('\n'),
    cell: (r) => (r.evidence_kernels ?? []).map((k) => h('div.line', short(k.kernel, 56), h('span.dim', ` ${dur(k.time_us)}`))),
    tsv: (r) => (r.evidence_kernels ?? []).map((k) => `${k.kernel} (${k.time_us} us)`).join('; ') },
  { key: 'locations', label: 'current Python location', cls: 'mono list loc', text: true,
    get: (r) => locations(r)[0] ?? '', title: (r) => locations(r).join('\n'),
    cell: (r) => locations(r).map((l) => h('div.line', l)), tsv: (r) => locations(r).join('; ') },
  { key: 'candidate_path', label: 'candidate fused Python path', cls: 'wrap', text: true },
  { key: 'rationale', label: 'rationale', cls: 'wrap', text: true },
];

export function renderFuse(fu) {
  if (!fu?.rows) return null;
  const body = [];
  if (!fu.rows.length) {
    body.push(h('p.dim', 'No fusable kernel pattern stood out.'));
  } else {
    const t = dataTable({
      name: 'fuse opportunities', rows: fu.rows, cols: COLS, sort: null, top: 0, tops: [0], tableClass: 'fuse',
      search: (r) => [r.stage, r.pattern, r.confidence, r.candidate_path, r.rationale, ...locations(r), ...(r.evidence_kernels ?? []).map((k) => k.kernel)],
    });
    body.push(t.toolbar, t.wrap);
  }
  return section('fuse', 'Fuse opportunities', body);
}
