// Summary header: what was analysed, on which device, and whether the
// measurements are relevant to the target architecture.
import { h, section } from './dom.js';
import { bytes, int, secs } from './format.js';

const ROLES = ['auto', 'mapping', 'formal'];
let fixURLs = [];

/**
 * @param {object} result
 * @param {object|null} meta profile_metadata.json
 * @param {object|null} stats run stats (page only)
 * @param {{overlap?: object, roles?: {get: (name: string) => string, set: (name: string, role: string) => void},
 *   fix?: (name: string, opts: {gzip: boolean}) => Promise<{blob: Blob, name: string, result: object, stats: object}>}} [opts]
 *   roles: per-file role toggles for triage (page only); fix: the "Fix for Perfetto" action (page only)
 */
export function renderSummary(result, meta, stats, opts = {}) {
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
    add('observed arch', meta.observed_arch ? `${meta.observed_arch}${meta.arch_basis ? ` (from ${meta.arch_basis})` : ''}` : '', { class: 'mono' });
    add('target arch', meta.target_arch, { class: 'mono' });
    add('stages', meta.stages);
    add('ROCm', meta.rocm_version);
    add('HIP runtime', meta.hip_runtime_version);
    add('CUDA', meta.cuda_version);
    add('GPU allocation', meta.gpu_device_ids);
    add('trace device ids', meta.trace_device_ids);
    add('model', meta.model_name);
    add('experiment / trial', [meta.experiment_id, meta.trial_id].filter(Boolean));
    if (meta.distributed) {
      const d = meta.distributed;
      add('distributed', `${d.backend} rank ${d.rank}/${d.world_size}${d.nccl_version ? ` · NCCL ${d.nccl_version}` : ''}`);
    }
  }

  return section('summary', 'Summary',
    partial && h('p.banner.warn', { role: 'status' },
      'Partial input: some data was damaged or cut short. Results cover what was read; see the file list.'),
    kv.length > 0 && h('dl.kv', kv),
    filesTable(result, meta, opts),
    stats && h('p.dim.stats', stats.command ? `${stats.command} · ` : '', `analysed ${bytes(stats.rawBytes)} (${bytes(stats.bytes)} on disk) in ${stats.seconds.toFixed(1)} s (analysis ${stats.finishSeconds.toFixed(2)} s) · ${stats.mbps.toFixed(0)} MB/s · module memory ${bytes(stats.memory)}${stats.blocks ? ` · read in ${stats.blocks} blocks by ${stats.parsers} parser workers (${bytes(stats.parserMemory ?? 0)} more memory)` : ''}${stats.restarted ? ' · read again by one worker (the blocks did not merge)' : ''}`),
  );
}

/** The role the module gave a trace in a triage pair (from overlap_opportunities.json). */
function resolvedRole(ov, name) {
  const s = ov?.summary;
  if (!s) return '';
  if (s.formal_file === name) return s.mapping_file === name ? 'formal + mapping' : 'formal';
  if (s.mapping_file === name) return 'mapping';
  return '';
}

function filesTable(result, meta, opts) {
  const files = result.files ?? [];
  const traces = files.filter((f) => f.kind === 'trace');
  const showRoles = !!opts.overlap?.summary && traces.length > 0;
  const fixPanel = opts.fix && traces.length ? h('div.fixpanel', { hidden: true, 'aria-live': 'polite' }) : null;
  const gzip = fixPanel && typeof CompressionStream === 'function'
    ? h('input', { type: 'checkbox', checked: true, 'aria-label': 'gzip the fixed trace' }) : null;
  const cols = ['file', 'kind', 'size', 'events', 'status'];
  if (showRoles) cols.push('triage role');
  if (fixPanel) cols.push('');

  const roleCell = (f) => {
    if (f.kind !== 'trace') return h('td');
    const got = resolvedRole(opts.overlap, f.name);
    if (!opts.roles) return h('td.mono', got || '—');
    const cur = opts.roles.get(f.name) || 'auto';
    const sel = h('select.role', { 'aria-label': `triage role of ${f.name}`, title: 'mapping: the graph-off (or capture) trace that maps kernels to code; formal: the graph-on trace whose timing is analysed; auto: let the module pair them' },
      ROLES.map((r) => h('option', { value: r, selected: r === cur }, r === 'auto' && got ? `auto (${got})` : r)));
    sel.addEventListener('change', () => opts.roles.set(f.name, sel.value));
    return h('td', sel, cur !== 'auto' && got && !got.includes(cur) ? h('span.dim', ` → ${got}`) : null);
  };

  const fixCell = (f) => {
    if (f.kind !== 'trace') return h('td');
    const btn = h('button.fix', { type: 'button', dataset: { file: f.name }, title: 'rewrite GPU slices that overlap on one stream onto extra lanes, so Perfetto draws them; the same bytes as `gputriage perfetto-fix`' }, 'Fix for Perfetto');
    btn.addEventListener('click', () => runFix(f.name, btn));
    return h('td', btn);
  };

  const runFix = async (name, btn) => {
    for (const u of fixURLs) URL.revokeObjectURL(u);
    fixURLs = [];
    for (const b of fixPanel.closest('section').querySelectorAll('button.fix')) b.disabled = true;
    fixPanel.hidden = false;
    fixPanel.dataset.state = 'working';
    fixPanel.replaceChildren(h('span.dim', `perfetto-fix ${name}: reading it twice (plan, then rewrite)…`));
    try {
      const out = await opts.fix(name, { gzip: !!gzip?.checked });
      const rep = out.result.artifacts?.find((a) => a.name === 'perfetto_fix_report.json');
      let st = null;
      try { st = rep && JSON.parse(rep.text); } catch { /* shown as absent */ }
      const url = (blob) => { const u = URL.createObjectURL(blob); fixURLs.push(u); return u; };
      fixPanel.replaceChildren(
        h('p', [
          h('b', 'Perfetto fix: '),
          st ? `${int(st.overlaps)} same-lane overlaps; ${int(st.crossings)} crossing GPU slice${st.crossings === 1 ? '' : 's'} moved to ${st.lanes?.length ?? 0} synthetic lane${st.lanes?.length === 1 ? '' : 's'}, ${int(st.flows_moved)} flow end${st.flows_moved === 1 ? '' : 's'} moved with them` : '',
          h('span.dim', ` · ${name} · ${bytes(out.stats.outBytes)} written${out.stats.gzip ? ` (${bytes(out.blob.size)} gzipped)` : ''} in ${secs(out.stats.seconds)}`),
        ]),
        out.result.exit_code !== 1 ? '' : h('p.banner.warn', `Partial input: ${out.result.files?.[0]?.problem || 'cut short'}`),
        h('div.toolbar', [
          h('a.dl.button.fixed', { href: url(out.blob), download: out.name }, `Download ${out.name}`),
          rep && h('a.dl.mono', { href: url(new Blob([new TextEncoder().encode(rep.text)], { type: 'application/json' })), download: rep.name }, rep.name),
          h('button.perfetto', {
            type: 'button', onclick: () => openInPerfetto(out.blob, out.name),
            title: 'opens ui.perfetto.dev in a new tab and hands it this fixed trace (postMessage); the trace goes to that tab, which then loads Perfetto from the network — this page itself sends nothing',
          }, 'Open in Perfetto (new tab)'),
        ]),
      );
      fixPanel.dataset.state = 'done';
    } catch (err) {
      const cancelled = err?.name === 'CancelledError';
      fixPanel.replaceChildren(cancelled ? h('span.dim', 'perfetto-fix cancelled') : h('p.banner.bad', `perfetto-fix ${name}: ${err?.message ?? err}`));
      fixPanel.dataset.state = cancelled ? 'cancelled' : 'error';
    } finally {
      for (const b of fixPanel.closest('section').querySelectorAll('button.fix')) b.disabled = false;
      btn.focus();
    }
  };

  return [
    h('table.files', [
      h('thead', h('tr', cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', files.map((f) => {
        const m = meta?.files?.find((x) => x.name === f.name);
        return h('tr', { class: f.partial ? 'partial' : '' }, [
          h('td.mono.name', { title: f.name }, f.name),
          h('td', f.kind),
          h('td.num', bytes(f.bytes)),
          h('td.num', m ? int(m.events) : ''),
          h('td', f.partial ? `partial: ${f.problem || 'cut short'}` : f.problem || (m?.bad_events ? `${int(m.bad_events)} bad events` : 'ok')),
          showRoles && roleCell(f),
          fixPanel && fixCell(f),
        ]);
      })),
    ]),
    gzip && h('label.dim.fixopt', { title: 'compress the fixed trace in the browser (CompressionStream); Perfetto opens .json.gz directly' }, gzip, ' gzip the Perfetto fix'),
    fixPanel,
  ];
}

const PERFETTO = 'https://ui.perfetto.dev';

/**
 * Perfetto UI's documented hand-over: open it, PING until it answers PONG,
 * then post the trace's bytes. An explicit user action: the new tab loads
 * Perfetto; this page makes no request.
 */
async function openInPerfetto(blob, name) {
  const win = window.open(PERFETTO);
  if (!win) return;
  const buffer = await blob.arrayBuffer();
  let tries = 0;
  const ping = setInterval(() => {
    if (++tries > 600 || win.closed) { clearInterval(ping); window.removeEventListener('message', onMsg); return; }
    win.postMessage('PING', PERFETTO);
  }, 100);
  const onMsg = (e) => {
    if (e.origin !== PERFETTO || e.data !== 'PONG') return;
    clearInterval(ping);
    window.removeEventListener('message', onMsg);
    win.postMessage({ perfetto: { buffer, title: name, fileName: name } }, PERFETTO);
  };
  window.addEventListener('message', onMsg);
}
