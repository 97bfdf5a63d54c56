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

function finding(f, i, multiFile) {
  const kv = [];
  for (const [k, label, mono] of FIELDS) {
    const v = f[k];
    if (v == null || v === '' || (Array.isArray(v) && !v.length)) continue;
    kv.push(h('dt', label), h(mono ? 'dd.mono' : 'dd', { title: Array.isArray(v) ? null : String(v) }, Array.isArray(v) ? v.join(', ') : String(v)));
  }
  // The culprit (rank / pid / host / gpu that caused a multi-rank failure), any unknown field null.
  for (const [k, v] of Object.entries(f.culprit ?? {})) {
    if (v == null || v === '' || (Array.isArray(v) && !v.length)) continue;
    kv.push(h('dt', `culprit ${k}`), h('dd.mono', Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)));
  }
  for (const [k, v] of Object.entries(f.details ?? {})) {
    if (k === 'kernel_api_call_args') continue; // listed below, one argument a line
    kv.push(h('dt', k), h('dd.mono', v));
  }
  const args = f.details?.kernel_api_call_args ? f.details.kernel_api_call_args.split('; ') : [];
  return h('article.finding', { 'aria-labelledby': `finding-${i}` }, [
    h('header', [
      h('span.badge.bad.mono', f.class),
      h(`span.badge.${LEVEL[f.confidence_level] ?? 'dim'}`, { title: `confidence ${f.confidence}` }, `${f.confidence_level} confidence`),
      f.count > 1 && h('span.dim', `×${int(f.count)}`),
    ]),
    h(`h3#finding-${i}`, f.summary),
    f.class_meaning && h('p.dim', f.class_meaning),
    kv.length > 0 && h('dl.kv', kv),
    args.length > 0 && h('div', [h('h4', 'failing call arguments'), h('ul.notes.mono', args.map((a) => h('li', a)))]),
    f.stop_pcs?.length > 0 && h('div', [h('h4', 'stop PCs'), h('table.nums', h('tbody', f.stop_pcs.map((p) =>
      h('tr', h('td.mono', p.pc), h('td.num', `${int(p.waves)} waves`), h('td.mono', p.kernel ?? '')))))]),
    f.disassembly?.length > 0 && h('details', [h('summary', 'disassembly'), h('pre.code', f.disassembly.join('\n'))]),
    h('h4', 'evidence'),
    h('ol.evidence', f.evidence.map((e) => h('li', [
      // The line number is what matters; the file only when several logs were given.
      h('span.loc', { title: `${e.file}:${e.line}` }, multiFile ? `${e.file.split(/[\\/]/).pop()}:${e.line}` : String(e.line)),
      h('code', e.text),
    ]))),
    f.evidence_omitted > 0 && h('p.dim', `+${int(f.evidence_omitted)} more lines`),
    f.next_steps?.length > 0 && h('div', [h('h4', 'next steps'), h('ol.steps', f.next_steps.map((s) => h('li', s)))]),
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
    h('p.headline', d.failure_reason || 'no failure found'),
    detail(d.detail_json),
    d.findings?.length ? d.findings.map((f, i) => finding(f, i, (d.inputs?.length ?? 0) > 1)) : h('p.dim', 'No GPU failure signature in these logs.'),
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
