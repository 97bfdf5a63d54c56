// crash_diagnosis.json: one card per finding, evidence lines verbatim.
import { h, section } from './dom.js';
import { bytes, int } from './format.js';

// Scalar fields shown in the card's key/value grid, in reading order.
const FIELDS = [
  ['kernel', 'kernel', true], ['kernel_mangled', 'mangled', true], ['kernel_meaning', 'kernel is'],
  ['kernel_source', 'kernel source', true], ['kernels', 'kernels', true],
  ['reason', 'reason'], ['reason_meaning', 'meaning'], ['reasons', 'reasons'],
  ['address', 'address', true], ['address_kind', 'address kind'], ['addresses', 'addresses', true],
  ['device', 'device'], ['agent', 'agent', true], ['node', 'node'], ['nodes', 'nodes'],
  ['queue', 'queue', true], ['queues', 'queues', true], ['queue_count', 'queues hit'],
  ['ranks', 'ranks'], ['pid', 'pid'], ['process', 'process', true], ['host', 'host', true],
  ['signal', 'signal'], ['exit_code', 'exit code'], ['hsa_status', 'HSA status', true], ['hsa_code', 'HSA code', true],
  ['hip_error', 'HIP error', true], ['hip_error_code', 'HIP code'], ['cuda_error', 'CUDA error', true],
  ['requested_bytes_text', 'requested'], ['sub_kind', 'kind'], ['op_type', 'collective'], ['seq_num', 'seq'],
  ['seq_nums', 'seqs'], ['waves', 'waves'], ['code_object', 'code object', true],
  ['saved_code_object', 'saved code object', true], ['location', 'location', true],
];

const LEVEL = { high: 'bad', medium: 'warn', low: 'dim' };

// Shown in the diagnosis lines, so never again in the field grid.
const IN_DIAGNOSIS = new Set(['reason', 'reason_meaning']);

const present = (v) => v != null && v !== '' && !(Array.isArray(v) && !v.length);

/**
 * Root-cause findings, each with the findings marked consequence_of it
 * (a consequence whose cause is not among the findings stands alone).
 * @returns {{f: object, consequences: object[]}[]}
 */
export function rootCauses(findings) {
  const classes = new Set(findings.map((f) => f.class));
  return findings.filter((f) => !f.consequence_of || !classes.has(f.consequence_of))
    .map((f) => ({ f, consequences: findings.filter((c) => c !== f && c.consequence_of === f.class) }));
}

/** Which rank / pid / GPU / host, and how it was computed; null when nothing points anywhere. */
export function culpritText(f) {
  const c = f.culprit;
  const parts = [];
  const add = (label, v) => { if (present(v)) parts.push(`${label} ${Array.isArray(v) ? v.join(', ') : v}`); };
  if (c) {
    add(c.rank == null && c.ranks?.length > 1 ? 'ranks' : 'rank', c.rank ?? c.ranks);
    add(c.pid == null && c.pids?.length > 1 ? 'pids' : 'pid', c.pid ?? c.pids);
    add('GPU', c.gpu);
    add('host', c.host);
    const how = [c.method && c.method !== 'none' ? `how: ${c.method}` : '', c.reason].filter(Boolean).join('; ');
    return `${parts.join(' · ') || 'not determined'}${how ? ` (${how})` : ''}`;
  }
  add(f.ranks?.length > 1 ? 'ranks' : 'rank', f.ranks);
  add('pid', f.pid);
  add('GPU', f.device);
  add(f.nodes?.length > 1 ? 'GPU nodes' : 'GPU node', f.node ?? f.nodes);
  add('HSA agent', f.agent);
  add('host', f.host);
  return parts.length ? `${parts.join(' · ')} (how: named by this finding's own lines)` : null;
}

// The fields culpritText already says when there is no culprit object.
const CULPRIT_FIELDS = new Set(['ranks', 'pid', 'device', 'agent', 'node', 'nodes', 'host']);

/** Any JSON value as readable nodes: never "[object Object]". */
function value(v) {
  if (v == null) return '';
  if (Array.isArray(v)) {
    if (v.every((x) => x == null || typeof x !== 'object')) return v.join(', ');
    const keys = [...new Set(v.flatMap((x) => (x && typeof x === 'object' ? Object.keys(x) : [])))];
    return h('table.nums.sub', [
      h('thead', h('tr', keys.map((k) => h('th', { scope: 'col' }, k)))),
      h('tbody', v.map((x) => h('tr', keys.map((k) => h('td.mono', value(x?.[k])))))),
    ]);
  }
  if (typeof v === 'object') {
    const e = Object.entries(v).filter(([, x]) => present(x));
    return h('dl.kv.sub', e.flatMap(([k, x]) => [h('dt', k.replace(/_/g, ' ')), h('dd.mono', value(x))]));
  }
  return String(v);
}

function finding(f, i, multiFile, all) {
  const kv = [];
  const culprit = culpritText(f);
  for (const [k, label, mono] of FIELDS) {
    const v = f[k];
    if (!present(v) || IN_DIAGNOSIS.has(k) || (!f.culprit && culprit && CULPRIT_FIELDS.has(k))) continue;
    kv.push(h('dt', label), h(mono ? 'dd.mono' : 'dd', { title: Array.isArray(v) ? null : String(v) }, Array.isArray(v) ? v.join(', ') : String(v)));
  }
  // details repeat some fields under other names (stuck_kernel = kernel):
  // a value already shown is not shown again.
  const shown = new Set(FIELDS.map(([k]) => f[k]).filter((v) => typeof v === 'string' && v));
  for (const [k, v] of Object.entries(f.details ?? {})) {
    // the call's arguments are listed below, one a line; the culprit_* copies are the culprit line
    if (k === 'kernel_api_call_args' || k.startsWith('culprit_') || shown.has(v)) continue;
    kv.push(h('dt', k.replace(/_/g, ' ')), h('dd.mono', value(v)));
  }
  const consequences = all.filter((c) => c !== f && c.consequence_of === f.class);
  const reason = [f.reason, f.reason_meaning].filter(Boolean).join(' — ');
  const args = f.details?.kernel_api_call_args ? f.details.kernel_api_call_args.split('; ') : [];
  const ev = f.culprit?.evidence ?? [];
  const line = (e) => h('li', [
    // The line number is what matters; the file only when several logs were given.
    h('span.loc', { title: `${e.file}:${e.line}` }, multiFile && e.file ? `${e.file.split(/[\\/]/).pop()}:${e.line}` : String(e.line)),
    h('code', e.text),
  ]);
  return h('article.finding', { 'aria-labelledby': `finding-${i}` }, [
    h('header', [
      h('span.badge.bad.mono', f.class),
      h(`span.badge.${LEVEL[f.confidence_level] ?? 'dim'}`, { title: `confidence ${f.confidence}` }, `${f.confidence_level} confidence`),
      f.count > 1 && h('span.dim', `×${int(f.count)}`),
    ]),
    h(`h3#finding-${i}`, f.summary),
    f.class_meaning && h('p.dim', f.class_meaning),
    h('dl.kv.diag', [
      reason && [h('dt', 'failure reason'), h('dd', reason)],
      culprit && [h('dt', 'culprit'), h('dd', culprit)],
      f.consequence_of
        ? [h('dt', 'consequence of'), h('dd.mono', f.consequence_of)]
        : [h('dt', 'root cause'), h('dd', [h('span.mono', f.class), consequences.length ? ` → ${consequences.map((c) => c.class).join(', ')}` : ''])],
      f.next_steps?.length > 0 && [h('dt', 'next step'), h('dd', f.next_steps[0])],
    ]),
    f.next_steps?.length > 1 && h('div', [h('h4', 'then'), h('ol.steps', { start: 2 }, f.next_steps.slice(1).map((s) => h('li', s)))]),
    h('h4', 'evidence'),
    h('ol.evidence', f.evidence.map(line)),
    f.evidence_omitted > 0 && h('p.dim', `+${int(f.evidence_omitted)} more lines`),
    ev.length > 0 && h('div', [h('h4', 'culprit evidence'), h('ol.evidence', ev.map(line))]),
    kv.length > 0 && h('div', [h('h4', 'facts'), h('dl.kv', kv)]),
    f.hang && h('div', [h('h4', 'hang'), value(Object.fromEntries(Object.entries(f.hang).filter(([k]) => !(k in (f.details ?? {})))))]),
    args.length > 0 && h('div', [h('h4', 'failing call arguments'), h('ul.notes.mono', args.map((a) => h('li', a)))]),
    f.stop_pcs?.length > 0 && h('div', [h('h4', 'stop PCs'), h('table.nums', h('tbody', f.stop_pcs.map((p) =>
      h('tr', h('td.mono', p.pc), h('td.num', `${int(p.waves)} waves`), h('td.mono', p.kernel ?? '')))))]),
    f.disassembly?.length > 0 && h('div', [h('h4', 'disassembly'), h('pre.code', f.disassembly.join('\n'))]),
    f.notes?.length > 0 && h('div', [h('h4', 'notes'), h('ul.notes', f.notes.map((s) => h('li', s)))]),
  ]);
}

// Seed 000's events.detail_json: the last kernel boundary, the crash dump
// and the GPU / container state, as one compact list.
function detail(dj) {
  if (!dj) return null;
  const rows = [];
  const kb = dj.last_kernel_boundary;
  if (kb) rows.push(['last kernel boundary', `${kb.call}${kb.completed ? '' : ' (no Output)'}${kb.level ? ` · level ${kb.level}` : ''}${kb.pid ? ` · pid ${kb.pid}` : ''}`]);
  if (dj.first_nan_inf) rows.push(['first NaN/Inf output', `${dj.first_nan_inf.call}: ${dj.first_nan_inf.output}`]);
  if (dj.crash_dump) rows.push(['crash dump', `${dj.crash_dump.path}${dj.crash_dump.inputs ? ' (inputs saved, no outputs: replay inputs.pt)' : ''}`]);
  const c = dj.gpu_state?.container;
  if (c) rows.push(['container', [c.exit_code != null && `exit ${c.exit_code}`, c.signal, c.oom_killed != null && `OOMKilled=${c.oom_killed}`, c.source].filter(Boolean).join(' · ')]);
  if (dj.gpu_state?.arch) rows.push(['GPU arch', dj.gpu_state.arch.join(', ')]);
  if (!rows.length) return null;
  return h('dl.kv', rows.flatMap(([k, v]) => [h('dt', k), h('dd.mono', v)]));
}

export function renderCrash(d) {
  if (!d) return null;
  return section('crash', 'Crash diagnosis',
    // failure_reason is the verdict's first line: not repeated here
    detail(d.detail_json),
    d.findings?.length ? d.findings.map((f, i) => finding(f, i, (d.inputs?.length ?? 0) > 1, d.findings)) : h('p.dim', 'No GPU failure signature in these logs.'),
    d.inputs?.length > 0 && h('table.files', [
      h('thead', h('tr', ['log', 'size', 'lines', 'formats', 'quality'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', d.inputs.map((x) => h('tr', [
        h('td.mono.name', { title: x.name }, x.name), h('td.num', bytes(x.bytes)), h('td.num', int(x.lines)),
        h('td.mono', (x.formats ?? []).join(', ')),
        h('td', [x.truncated && 'truncated', ...(x.quality ?? [])].filter(Boolean).join('; ')),
      ]))),
    ]),
  );
}
