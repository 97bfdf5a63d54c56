// Summary header: what was analysed, on which device, and whether the
// measurements are relevant to the target architecture.
import { h, section } from './dom.js';
import { bytes, int } from './format.js';

const MATCH_CLASS = { exact: 'ok', compatible: 'info', unknown: 'warn' };

export function renderSummary(result, meta, stats) {
  const files = result.files ?? [];
  const partial = result.exit_code === 1 || files.some((f) => f.partial) || meta?.partial;
  const kv = [];
  const add = (k, v, opts = {}) => {
    if (v == null || v === '' || (Array.isArray(v) && !v.length)) return;
    kv.push(h('dt', k), h('dd', opts, Array.isArray(v) ? v.join(', ') : String(v)));
  };
  if (meta) {
    const dev = meta.device_name ?? '';
    add('device', meta.vendor && !dev.toLowerCase().includes(meta.vendor) ? `${dev} (${meta.vendor})` : dev);
    add('observed arch', meta.observed_arch, { class: 'mono' });
    add('target arch', meta.target_arch, { class: 'mono' });
    add('stages', meta.stages);
    add('ROCm', meta.rocm_version);
    add('HIP runtime', meta.hip_runtime_version);
    add('CUDA', meta.cuda_version);
    add('GPU ids', meta.gpu_device_ids);
    if (meta.distributed) {
      const d = meta.distributed;
      add('distributed', `${d.backend} rank ${d.rank}/${d.world_size}${d.nccl_version ? ` · NCCL ${d.nccl_version}` : ''}`);
    }
  }

  const match = meta?.arch_match;
  return section('summary', 'Summary',
    partial && h('p.banner.warn', { role: 'status' },
      'Partial input: some data was damaged or cut short. Results cover what was read; see the file list.'),
    result.error && h('p.banner.bad', { role: 'alert' }, result.error),
    meta && h('div.arch', [
      h(`span.badge.${MATCH_CLASS[match] ?? 'warn'}`, { title: `arch_match against target ${meta.target_arch}` }, `arch_match: ${match || 'unknown'}`),
      h('span.reason', meta.hardware_relevance_reason || '', meta.arch_basis ? h('span.dim', ` (arch from ${meta.arch_basis})`) : null),
    ]),
    kv.length > 0 && h('dl.kv', kv),
    h('table.files', [
      h('thead', h('tr', ['file', 'kind', 'size', 'events', 'status'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', files.map((f) => {
        const m = meta?.files?.find((x) => x.name === f.name);
        return h('tr', { class: f.partial ? 'partial' : '' }, [
          h('td.mono.name', { title: f.name }, f.name),
          h('td', f.kind),
          h('td.num', bytes(f.bytes)),
          h('td.num', m ? int(m.events) : ''),
          h('td', f.partial ? `partial: ${f.problem || 'cut short'}` : f.problem || (m?.bad_events ? `${int(m.bad_events)} bad events` : 'ok')),
        ]);
      })),
    ]),
    stats && h('p.dim.stats', `analysed ${bytes(stats.rawBytes)} (${bytes(stats.bytes)} on disk) in ${stats.seconds.toFixed(1)} s (analysis ${stats.finishSeconds.toFixed(2)} s) · ${stats.mbps.toFixed(0)} MB/s · module memory ${bytes(stats.memory)}`),
  );
}
