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
  for (const [k, v] of Object.entries(f.details ?? {})) kv.push(h('dt', k), h('dd.mono', v));
  return h('article.finding', { 'aria-labelledby': `finding-${i}` }, [
    h('header', [
      h('span.badge.bad.mono', f.class),
      h(`span.badge.${LEVEL[f.confidence_level] ?? 'dim'}`, { title: `confidence ${f.confidence}` }, `${f.confidence_level} confidence`),
      f.count > 1 && h('span.dim', `×${int(f.count)}`),
    ]),
    h(`h3#finding-${i}`, f.summary),
    f.class_meaning && h('p.dim', f.class_meaning),
    kv.length > 0 && h('dl.kv', kv),
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

export function renderCrash(d) {
  if (!d) return null;
  return section('crash', 'Crash diagnosis',
    h('p.headline', d.failure_reason || 'no failure found'),
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
