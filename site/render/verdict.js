// The verdict: the first screen of every report. Per stage the takeaways
// of profile_summary.md that matter most (in the module's order: why the GPU
// idles, the top opportunity, what to do next), the arch relevance in one
// line, the crash diagnosis as failure reason, culprit, root cause →
// consequences and next step, and one row per file that could not be read.
// Everything here comes from the artifacts; the sections below keep their
// depth.
import { h } from './dom.js';
import { inlineTokens, mdListUnder } from './inline.js';
import { culpritText, rootCauses } from './crash.js';
import { dur } from './format.js';

const MATCH_CLASS = { exact: 'ok', compatible: 'info', unknown: 'warn' };
const TOP = 3; // takeaways per stage in the lead list

/** Inline Markdown → nodes (text nodes and <code>/<b>, never parsed HTML). */
export function md(s) {
  const walk = (ts) => ts.map((t) => (t.t === 'code' ? h('code', t.s) : t.t === 'b' ? h('b', walk(t.c)) : t.s));
  return walk(inlineTokens(s));
}

/** Takeaways grouped by their "stage: " prefix, groups in first-seen order. */
export function groupTakeaways(items, stages) {
  const groups = new Map();
  for (const t of items) {
    const m = /^([^:`*]{1,80}): (.*)$/.exec(t);
    const key = m && stages.includes(m[1]) ? m[1] : '';
    const text = key ? m[2] : t;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(text);
  }
  return [...groups];
}

/**
 * @param {object} result the module's result
 * @param {{meta: object|null, bd: object|null, crash: object|null, title: string}} a
 */
export function renderVerdict(result, { meta, bd, crash, diff, title }) {
  const summary = result.artifacts?.find((x) => x.name === 'profile_summary.md')?.text ?? '';
  const stages = (bd?.stages ?? []).map((s) => s.stage);
  const groups = groupTakeaways(mdListUnder(summary, 'Takeaways'), stages);
  // The files the CLI would exit 2 on, one row each; an error no file owns, one row.
  const bad = (result.files ?? []).filter((f) => f.kind === 'unknown').map((f) => [f.name, f.problem || 'not read']);
  if (!bad.length && result.error) bad.push(['', result.error]);
  const heading = h('h2#verdict-h', { tabindex: -1 }, title);
  const match = meta?.arch_match;
  return h('section.card.verdict#verdict', { 'aria-labelledby': 'verdict-h' }, [
    heading,
    bad.length > 0 && h('ul.errors', { 'aria-label': 'files not read' }, bad.map(([name, problem]) =>
      h('li.errrow.banner.bad', [name && [h('b', name), ': '], problem]))),
    meta && h('p.archline', [
      h(`span.badge.${MATCH_CLASS[match] ?? 'warn'}`, { title: `arch_match against target ${meta.target_arch}` }, `arch_match: ${match || 'unknown'}`),
      ' ', h('span', meta.hardware_relevance_reason || ''),
    ]),
    diff,
    rankLine(bd?.ranks),
    groups.length > 0 && h('div.takeaways', groups.map(([stage, items]) => h('div.tgroup', [
      (stage || groups.length > 1) && h('h3.mono', stage || 'whole trace'),
      h('ol.lead', items.slice(0, TOP).map((t) => h('li', md(t)))),
      items.length > TOP && h('ul.more', items.slice(TOP).map((t) => h('li', md(t)))),
    ]))),
    crash && crashVerdict(crash),
  ]);
}

// The diagnosis in four lines per root cause; the cards below hold the evidence.
function crashVerdict(d) {
  const roots = rootCauses(d.findings ?? []);
  return h('div.crashverdict', [
    h('p.headline', [h('span.dim', 'failure: '), d.failure_reason || 'no failure found']),
    roots.slice(0, 3).map(({ f, consequences }) => h('dl.kv.diag', [
      h('dt', 'root cause'), h('dd', [h('span.badge.bad.mono', f.class), ' ', f.summary,
        consequences.length ? [' → ', h('span', consequences.map((c) => c.class).join(', '))] : null]),
      culpritText(f) && [h('dt', 'culprit'), h('dd', culpritText(f))],
      f.next_steps?.length > 0 && [h('dt', 'next step'), h('dd', f.next_steps[0])],
    ])),
  ]);
}

// Several rank files: who waits for whom (the ranks section's verdict).
function rankLine(rk) {
  if (!rk?.rows?.length || rk.slowest_rank == null) return null;
  return h('p.rankline', [h('b', `Rank ${rk.slowest_rank} is the slowest`), `: rank ${rk.most_waiting_rank} waits the most inside collectives (${dur(rk.collective_skew_us)} more than rank ${rk.slowest_rank}). Look at rank ${rk.slowest_rank}'s compute and host-side gaps first.`]);
}
