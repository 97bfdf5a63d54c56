// The page: pick or drop files, watch progress, read the report. All work
// happens in a Web Worker running gputriage.wasm; nothing is uploaded.
import { Client, CancelledError } from '../jsbridge/client.js';
import { renderReport } from './render/report.js';
import { h } from './render/dom.js';
import { identityForm, readIdentity } from './render/identity.js';
import { bytes, secs } from './render/format.js';
import { warmFonts } from './render/fonts.js';
import template from 'gputriage-report-template';
import example from 'gputriage-example';
import { reportTitle } from './render/report.js';
import { unzip } from './zip.js';
import { visible } from './render/tsv.js';

const EXAMPLE_NAME = 'sglang_Qwen3-8B_decode.json.gz';

const $ = (id) => document.getElementById(id);
const ui = {
  files: $('pick-files'), folder: $('pick-folder'), target: $('target'), command: $('command'), drop: $('drop'),
  progress: $('progress'), bar: $('bar'), ptext: $('ptext'), cancel: $('cancel'),
  report: $('report'), status: $('status'), error: $('error'), example: $('example'),
};

// The run identity form (seed 004's linkage fields), beside the target.
const idForm = identityForm();
ui.target.closest('label').after(idForm);

// Observable hooks for tests and curious users (devtools): last run figures.
const probe = (window.__gputriage = { stats: null, progress: null, peakMemory: 0, moduleMs: null, runs: 0, fix: null });

const client = new Client({
  onReady(ms, phases) {
    probe.moduleMs = ms;
    // ms since navigation: when the module was ready, and where its time went.
    // Worker timestamps (…At) arrive as epoch ms: here, ms since navigation.
    const at = Object.fromEntries(Object.entries(phases ?? {}).map(([k, v]) => [k, k.endsWith('At') && v != null ? v - performance.timeOrigin : v]));
    probe.phases = { ...at, readyAt: performance.now() };
    ui.status.textContent = `module ready (${ms.toFixed(0)} ms)`;
  },
  onWarm() { probe.warmAt = performance.now(); },
  onError(msg) { showError(msg); },
});

let lastFiles = null;
// Triage roles the user set per file name (mapping | formal); reset per drop.
let roles = new Map();

function setState(s) { document.body.dataset.state = s; }

// Folders can hold checkpoints and images; skip what cannot be a trace or log.
const SKIP = /(^|\/)\.|\.(pt|pth|bin|safetensors|ckpt|npy|npz|png|jpe?g|gif|svg|pdf|zip|tar|tgz|xz|zst|so|o|a|whl|pyc|mp4)$/i;

/** Options for begin(): the command choice and the triage roles. */
function jobOptions() {
  const opts = { target_arch: ui.target.value.trim() };
  const cmd = ui.command.value;
  const mapping = [...roles].filter(([, r]) => r === 'mapping').map(([n]) => n);
  const formal = [...roles].filter(([, r]) => r === 'formal').map(([n]) => n);
  // A role only means something to triage: setting one asks for it.
  opts.command = cmd === 'auto' && (mapping.length || formal.length) ? 'triage' : cmd;
  if (opts.command === 'auto') opts.autoTriage = true;
  if (mapping.length) opts.mapping = mapping;
  if (formal.length) opts.formal = formal;
  const runId = readIdentity(idForm);
  if (runId) opts.run = runId;
  return opts;
}

// The artifacts `gputriage diff` reads from an artifact folder, in its order
// (cmd/gputriage/diffinput.go).
const DIFF_ARTIFACTS = ['profile_metadata.json', 'kernel_table.json', 'breakdown.json', 'gpu_timeline.json'];
let lastDrop = null;
let lastCompare = null;

/**
 * A drop or a pick: zips opened, then either one job over every file or,
 * with command "compare" (or two artifact zips / folders under auto), the
 * CLI's `gputriage diff A B` over the two things dropped.
 * @param {{file: File, name: string, top: string}[]} files
 */
async function handle(files) {
  if (!files.length) return;
  lastDrop = files;
  let all = [];
  try {
    for (const f of files) {
      if (!/\.zip$/i.test(f.name)) { all.push(f); continue; }
      const stem = f.name.replace(/\.zip$/i, '');
      for (const e of await unzip(f.file)) {
        const name = `${stem}/${e.name}`;
        if (!SKIP.test(name)) all.push({ file: new File([e.data], e.name.split('/').pop()), name, top: f.top });
      }
    }
  } catch (err) {
    showError(`${err.message}`);
    return;
  }
  const groups = [...Map.groupBy(all, (f) => f.top).values()];
  const cmd = ui.command.value;
  const artifactRun = (g) => g.some((f) => /(^|\/)kernel_table\.json$/.test(f.name));
  const zips = files.filter((f) => /\.zip$/i.test(f.name)).length;
  // Two things of one name (the same model's trace from two machines) are
  // two runs: one job would see a single name twice.
  const sameName = groups.length === 2 && groups[0].some((x) => groups[1].some((y) => y.name.split('/').pop() === x.name.split('/').pop()));
  if (cmd === 'diff' || (cmd === 'auto' && groups.length === 2 && (zips === 2 || sameName || groups.every(artifactRun)))) {
    if (groups.length !== 2) {
      showError(`compare needs two runs, A then B: drop two traces, two folders or two artifact zips (got ${groups.length})`);
      return;
    }
    const side = (g) => (artifactRun(g) ? DIFF_ARTIFACTS.map((n) => g.find((f) => f.name.split('/').pop() === n)).filter(Boolean) : g);
    await compare(side(groups[0]), side(groups[1]));
    return;
  }
  lastCompare = null;
  await run(all.sort(byName)); // zip entries too: in the CLI's order
}

// byName orders files as the CLI does (Go's sort of the names' UTF-8
// bytes): the artifacts list files in the order they are fed, so every
// host feeds them in this one order. (localeCompare put "a_b" and "A"
// where no byte order would.)
const utf8 = new TextEncoder();
function byName(a, b) {
  const x = utf8.encode(a.name), y = utf8.encode(b.name);
  for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** `gputriage diff [--force] A B`: run A's files first, then run B's. */
async function compare(a, b, { force = false } = {}) {
  // Two files of one name (the same model on two GPUs) are told apart as
  // the CLI's `diff A/x B/x` would name them.
  const clash = a.some((x) => b.some((y) => y.name === x.name));
  const named = (g, tag) => g.map((f) => ({ ...f, name: clash ? `${tag}/${f.name}` : f.name }));
  lastCompare = { a, b };
  await run([...named(a, 'A'), ...named(b, 'B')], { diff: { split_a: a.length, force } });
}

// The keys a Hugging Face config.json names that the roofline reads (the
// CLI's --model-config; analyzer/roofline ParseModelConfig).
const CONFIG_KEYS = ['hidden_size', 'num_attention_heads', 'num_key_value_heads', 'num_local_experts', 'num_experts',
  'n_routed_experts', 'num_experts_per_tok', 'text_config', 'quantization_config', 'torch_dtype'];

/**
 * A dropped model config.json is the roofline's model config, not an
 * input: a small JSON object, not a trace, naming a config key.
 * @param {{file: File, name: string}[]} files
 */
async function splitModelConfig(files) {
  let config = null;
  const rest = [];
  for (const f of files) {
    if (f.file.size < 1 << 20) {
      try {
        const v = JSON.parse(await f.file.text());
        if (v && typeof v === 'object' && !Array.isArray(v) && !('traceEvents' in v) && CONFIG_KEYS.some((k) => k in v)) {
          config = v;
          continue;
        }
      } catch { /* not JSON: the module reads it as a trace or a log */ }
    }
    rest.push(f);
  }
  return { rest, config };
}

async function run(files, { keepRoles = false, diff = null } = {}) {
  if (!files.length) return;
  probe.dropAt = performance.now();
  if (!keepRoles) roles = new Map();
  lastFiles = files;
  // working from the drop on: the config sniff below awaits file reads, and
  // until then the previous report must not pass for this drop's
  setState('working');
  const { rest, config } = await splitModelConfig(files);
  if (!rest.length) {
    showError('a model config.json alone: drop it together with the trace it describes');
    return;
  }
  files = rest;
  ui.error.hidden = true;
  ui.progress.hidden = false;
  ui.cancel.focus();
  const total = files.reduce((n, f) => n + f.file.size, 0);
  showProgress({ bytesRead: 0, total, file: files[0].name, fileIndex: 0, files: files.length, mbps: 0, eta: NaN, memory: 0 });
  probe.peakMemory = 0;
  try {
    const opts = jobOptions();
    if (config) opts.model_config = config;
    if (diff) {
      delete opts.autoTriage;
      Object.assign(opts, { command: 'diff', split_a: diff.split_a }, diff.force ? { force: true } : {});
    }
    const { result, stats, spans } = await client.start(files, opts, showProgress);
    probe.stats = stats;
    probe.result = result;
    probe.peakMemory = Math.max(probe.peakMemory, stats.memory);
    ui.progress.hidden = true;
    // As the CLI: a file it cannot read is an error row beside the report of
    // the files it could (exit 2 with artifacts); no artifacts at all is an error.
    if (!result.artifacts?.length) {
      // Two runs in one drop (an MI300X and an H100 trace): not one report
      // but a comparison, as `gputriage diff A B`.
      if (!diff && result.runs?.length === 2) {
        const pick = (r) => r.files.map((n) => files.find((f) => f.name === n)).filter(Boolean);
        await compare(pick(result.runs[0]), pick(result.runs[1]));
        return;
      }
      // each file's own problem (a limit and its flag, a damaged stream): the
      // CLI prints them; a bare "could not read" dropped them (issue 24)
      const why = (result.files ?? []).filter((f) => f.problem).map((f) => `${f.name}: ${f.problem}`).join('; ');
      showError(result.error || `the module could not read these files${why ? `: ${why}` : ''}`);
      return;
    }
    document.title = `${visible(reportTitle(result))} \u2014 gputriage`;
    const tr = performance.now();
    probe.resultAt = tr;
    performance.mark('gputriage:result'); // devtools' timings track
    probe.renderSections = await renderReport(ui.report, result, {
      stats,
      spans,
      focus: true,
      saveReport: () => savedReport(result, stats),
      roles: {
        get: (name) => roles.get(name) ?? 'auto',
        set: (name, role) => {
          if (role === 'auto') roles.delete(name);
          else roles.set(name, role);
          if (!client.busy) run(lastFiles, { keepRoles: true });
        },
      },
      fix: (name, opts) => perfettoFix(files.find((f) => f.name === name), opts),
      // diff: compare anyway (--force), or with A and B swapped
      force: diff && lastCompare ? () => compare(lastCompare.a, lastCompare.b, { force: true }) : null,
      swap: diff && lastCompare ? () => compare(lastCompare.b, lastCompare.a, { force: diff.force }) : null,
    });
    probe.renderMs = performance.now() - tr;
    probe.doneAt = performance.now();
    performance.mark('gputriage:done');
    probe.runs++;
    ui.drop.classList.add('compact');
    // A rate over a small input mostly measures the final analysis; omit it.
    ui.status.textContent = `${stats.command} · ${files.length} file${files.length > 1 ? 's' : ''} · ${bytes(stats.rawBytes)} · ${secs(stats.seconds)}` +
      (stats.rawBytes > 50e6 ? ` · ${stats.mbps.toFixed(0)} MB/s` : '') + (stats.blocks ? ` · ${stats.parsers} parsers` : '');
    setState('done');
  } catch (err) {
    ui.progress.hidden = true;
    if (err instanceof CancelledError) {
      ui.status.textContent = 'cancelled';
      setState('idle');
      return;
    }
    showError(err.message);
  }
}

/** perfetto-fix in the worker, with the same progress bar (two passes) and Cancel. */
async function perfettoFix(f, opts) {
  document.body.dataset.fix = 'working';
  ui.progress.hidden = false;
  showProgress({ bytesRead: 0, total: f.file.size * 2, file: f.name, fileIndex: 0, files: 1, pass: 1, passes: 2, mbps: 0, eta: NaN, memory: 0 });
  try {
    const out = await client.fix(f, opts, showProgress);
    probe.fix = out.stats;
    document.body.dataset.fix = 'done';
    return out;
  } catch (err) {
    document.body.dataset.fix = err instanceof CancelledError ? 'cancelled' : 'error';
    throw err;
  } finally {
    ui.progress.hidden = true;
  }
}

function showProgress(p) {
  probe.progress = p;
  probe.peakMemory = Math.max(probe.peakMemory, p.memory || 0);
  const frac = p.total ? p.bytesRead / p.total : 0;
  ui.bar.style.width = `${(frac * 100).toFixed(1)}%`;
  ui.progress.setAttribute('aria-valuenow', String(Math.round(frac * 100)));
  ui.ptext.replaceChildren(
    ...(p.passes ? [h('b', `perfetto-fix pass ${p.pass}/${p.passes} (${p.pass === 1 ? 'plan' : 'rewrite'}) `)] : []),
    h('span.mono.name', { title: p.file }, `${p.files > 1 ? `${p.fileIndex + 1}/${p.files} ` : ''}${p.file}`),
    ` ${bytes(p.bytesRead)} / ${bytes(p.total)} · ${p.mbps.toFixed(0)} MB/s · ${eta(p, frac)}`,
    h('span.dim', ` · module ${bytes(p.memory)}`),
  );
}

// An honest estimate: the reading's time left while bytes are read (none
// before 5 % of them: too early to say), then what is left — the analysis,
// which no byte count measures — said as such rather than "0 s left".
function eta(p, frac) {
  if (p.total && p.bytesRead >= p.total) return p.passes && p.pass < p.passes ? 'next pass…' : 'read; analysing…';
  if (!Number.isFinite(p.eta) || frac < 0.05) return 'estimating…';
  return `reading: ~${secs(Math.max(p.eta, 0.1))} left, then the analysis`;
}

function showError(msg) {
  ui.progress.hidden = true;
  ui.error.textContent = visible(msg);
  ui.error.hidden = false;
  setState('error');
}

function savedReport(result, stats) {
  const data = JSON.stringify({ result, stats, saved: new Date().toISOString() })
    .replace(/</g, '\\u003c'); // no "</script>" can end the data block early
  const html = template.replace('{{DATA}}',
    () => `<script type="application/json" id="gputriage-data">${data}</script>`);
  return new Blob([html], { type: 'text/html' });
}

function fromInput(input) {
  return [...input.files]
    // top: which dropped thing a file came from (a folder, or the file itself)
    .map((f, i) => ({ file: f, name: f.webkitRelativePath || f.name, top: f.webkitRelativePath ? `dir:${f.webkitRelativePath.split('/')[0]}` : `file:${i}` }))
    .filter((f) => !(input.webkitdirectory && SKIP.test(f.name)))
    .sort(byName);
}

// Drag and drop, folders included (webkitGetAsEntry walks directories).
async function fromDrop(dt) {
  const entries = [...dt.items].map((it) => it.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...dt.files].map((f, i) => ({ file: f, name: f.name, top: `file:${i}` }));
  const out = [];
  let top = '';
  const walk = async (e, inFolder) => {
    if (e.isFile) {
      const name = e.fullPath.replace(/^\//, '');
      if (inFolder && SKIP.test(name)) return;
      out.push({ file: await new Promise((res, rej) => e.file(res, rej)), name: inFolder ? name : e.name, top });
    } else if (e.isDirectory) {
      const r = e.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => r.readEntries(res, rej)); // ≤100 per call
        if (!batch.length) break;
        for (const c of batch) await walk(c, true);
      }
    }
  };
  for (const [i, e] of entries.entries()) { top = `entry:${i}`; await walk(e, false); }
  return out.sort(byName);
}

ui.files.addEventListener('change', () => { handle(fromInput(ui.files)); ui.files.value = ''; });
ui.folder.addEventListener('change', () => { handle(fromInput(ui.folder)); ui.folder.value = ''; });
ui.cancel.addEventListener('click', () => client.cancel());
ui.example.addEventListener('click', () => handle([{ file: new File([example], EXAMPLE_NAME, { type: 'application/gzip' }), name: EXAMPLE_NAME, top: 'example' }]));
// The drop zone doubles as a button for the file picker.
ui.drop.addEventListener('click', () => ui.files.click());
ui.drop.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); ui.files.click(); }
});
ui.target.addEventListener('change', () => { if (lastFiles && !client.busy) run(lastFiles, { keepRoles: true }); });
ui.command.addEventListener('change', () => {
  if (client.busy) return;
  if (ui.command.value === 'diff' || lastCompare) { if (lastDrop) handle(lastDrop); return; }
  if (lastFiles) run(lastFiles, { keepRoles: ui.command.value !== 'breakdown' });
});

// The whole window is a drop target; the drop zone just says so.
let depth = 0;
document.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; document.body.classList.add('dragging'); });
document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; document.body.classList.remove('dragging'); } });
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', async (e) => {
  e.preventDefault();
  depth = 0;
  document.body.classList.remove('dragging');
  handle(await fromDrop(e.dataTransfer));
});

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && client.busy) client.cancel();
  const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement?.tagName);
  if (e.key === '/' && !typing) {
    const f = document.querySelector('#kernels input.filter');
    if (f) { e.preventDefault(); f.focus(); }
  }
});

setState('idle');
// The fonts the progress bar and the report use, laid out in idle time now
// rather than inside the drop's and the report's first tasks (render/fonts.js).
warmFonts().then(() => { probe.fontsWarmAt = performance.now(); });
