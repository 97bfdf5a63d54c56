// Browser end-to-end tests of the page (dist/ and dist-inline/), run by
// `make test-browser` after `make site`. Uses the system Chromium through
// playwright-core (no browser download). Prints `N passed, N failed` last
// and exits non-zero on any failure.
//
//   node site/test/e2e.mjs [filter]     run tests whose name contains filter
//   GPUTRIAGE_BIG_MB=1024               raw size of the generated big trace
//   GPUTRIAGE_MEM_PER_KERNEL=512        bound on the module's memory per kernel for it
//                                       (the analyzer keeps compact records per kernel,
//                                       so memory grows with kernel count, not bytes)
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');
const INLINE = path.join(ROOT, 'dist-inline', 'index.html');
const CLI = path.join(ROOT, 'bin', 'gputriage');
const SHARED = path.resolve(ROOT, '../shared/testdata');
const ART_DIR = path.join(ROOT, 'site/test/artifacts');
const TRACES = {
  rocmDecode: `${SHARED}/traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz`,
  mi300: `${SHARED}/traces/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz`,
  h100: `${SHARED}/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz`,
};
const CRASH_LOG = `${SHARED}/crash/s01_rocr_fault_docker_compose_prefix_ollama8851.log`;
const GPU = `${SHARED}/gpu/traces`;
const PAIR = [`${GPU}/eager_graph_off.trace.json.gz`, `${GPU}/graph_on.trace.json.gz`]; // H100, graph off + on
const RANKS = [`${GPU}/tp_rank0.trace.json.gz`, `${GPU}/tp_rank1.trace.json.gz`];
const OVERLAPPING = `${SHARED}/traces/tracelens/b200/eager_trace.json.gz`; // 74 same-lane overlaps
const BIG_MB = Number(process.env.GPUTRIAGE_BIG_MB ?? 1024);
const MEM_PER_KERNEL = Number(process.env.GPUTRIAGE_MEM_PER_KERNEL ?? 512);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Another build's dist/ (e.g. main's), served under /baseline/ so a benchmark
// compares it with this one in the same run.
const BASELINE = process.env.GPUTRIAGE_BASELINE_DIST ? path.resolve(process.env.GPUTRIAGE_BASELINE_DIST) : null;
const filter = process.argv[2] ?? '';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'gputriage-e2e-'));
fs.mkdirSync(ART_DIR, { recursive: true });

// ---------------------------------------------------------------- harness

const tests = [];
const test = (name, fn) => tests.push({ name, fn });
const figures = [];
const note = (s) => { figures.push(s); console.log(`    ${s}`); };

// ---------------------------------------------------------------- server

// A static server for dist/ with the same headers as `go run ./build -serve`
// (CSP from the page's meta tag). Under /badmime/ the module is served as
// application/octet-stream to exercise the compile(arrayBuffer) fallback.
function startServer() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1];
  const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const badMime = p.startsWith('/badmime/');
    if (badMime) p = p.slice('/badmime'.length);
    if (p.endsWith('/')) p += 'index.html';
    let root = DIST;
    if (BASELINE && p.startsWith('/baseline/')) { root = BASELINE; p = p.slice('/baseline'.length); }
    const file = path.join(root, path.normalize(p));
    if (!file.startsWith(root) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    const ext = path.extname(file);
    res.writeHead(200, {
      'Content-Type': badMime && ext === '.wasm' ? 'application/octet-stream' : types[ext] ?? 'application/octet-stream',
      'Content-Security-Policy': csp,
      'Cache-Control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---------------------------------------------------------------- helpers

let browser;
let base;

// Longest main-thread gap: a 16 ms timer loop plus long-task entries.
const RESPONSIVENESS = () => {
  const r = (window.__resp = { maxGap: 0, endGap: 0, longTask: 0, armed: false, gaps: [] });
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    if (r.armed && now - last - 16 > 50) r.gaps.push(`${(now - last - 16).toFixed(0)} ms at ${(now / 1000).toFixed(2)} s (${document.body.dataset.state}, ${((window.__gputriage?.progress?.rawBytes ?? 0) / 1e6).toFixed(0)} MB)`);
    // Streaming and the report's first paint are told apart by state.
    if (r.armed && document.body.dataset.state === 'working') r.maxGap = Math.max(r.maxGap, now - last - 16);
    else if (r.armed && document.body.dataset.state === 'done') r.endGap = Math.max(r.endGap, now - last - 16);
    last = now;
    setTimeout(tick, 16);
  };
  setTimeout(tick, 16);
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) {
        if (!r.armed) continue;
        r.longTask = Math.max(r.longTask, e.duration);
        r.gaps.push(`longtask ${e.duration.toFixed(0)} ms at ${((e.startTime) / 1000).toFixed(2)} s`);
      }
    }).observe({ type: 'longtask', buffered: false });
  } catch { /* longtask unsupported */ }
};

async function openPage(url, { colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 }, colorScheme });
  const page = await context.newPage();
  await page.addInitScript(RESPONSIVENESS);
  const requests = [];
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // blob: URLs are the page's own workers (the gunzip worker starts one per file), not network.
  context.on('request', (r) => { if (!r.url().startsWith('blob:')) requests.push(r.url()); });
  page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') errors.push(`worker: ${m.text()}`); }));
  await page.goto(url);
  // "Loaded" = the worker has compiled the module (the served build fetches
  // it); from here on, nothing may touch the network.
  await page.waitForFunction(() => window.__gputriage?.moduleMs != null, null, { timeout: 60_000 });
  const loaded = requests.length;
  return {
    page, context, errors,
    requestsAfterLoad: () => requests.slice(loaded),
    allRequests: () => requests.slice(),
    close: () => context.close(),
  };
}

async function drop(page, files, timeout = 120_000) {
  await page.setInputFiles('#pick-files', files);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state) , null, { timeout });
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state === 'error') assert.fail(`page error: ${await page.textContent('#error')}`);
}

/** The artifacts the CLI wrote into out, without its manifest (artifacts.json
 *  is the CLI's record of the folder; the page offers the artifacts
 *  themselves), after checking the manifest lists exactly those files with
 *  their sizes and sha256. */
function readCliOut(out) {
  // (a rank folder's ranks/<rank>/ artifacts are named with their folder, as in the zip)
  const files = Object.fromEntries(fs.readdirSync(out, { recursive: true }).filter((n) => fs.statSync(path.join(out, n)).isFile())
    .map((n) => [n.split(path.sep).join('/'), fs.readFileSync(path.join(out, n))]));
  const man = files['artifacts.json'];
  assert.ok(man, `the CLI wrote no artifacts.json in ${out}`);
  delete files['artifacts.json'];
  const listed = JSON.parse(man.toString('utf8')).files;
  assert.deepEqual(listed.map((f) => f.name).sort(), Object.keys(files).sort(), 'artifacts.json lists every artifact');
  for (const f of listed) {
    assert.equal(f.bytes, files[f.name].length, `artifacts.json: ${f.name} size`);
    assert.equal(f.sha256, crypto.createHash('sha256').update(files[f.name]).digest('hex'), `artifacts.json: ${f.name} sha256`);
  }
  return files;
}

/** The CLI's artifacts for files of one folder, named as the page names them
 *  (basenames, in the given order). */
function cliArtifacts(files, cmd = 'breakdown', extra = []) {
  files = [].concat(files);
  const out = fs.mkdtempSync(path.join(TMP, 'cli-'));
  const r = spawnSync(CLI, [cmd, '-q', '-o', out, ...extra, ...files.map((f) => path.basename(f))], { cwd: path.dirname(files[0]), encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `gputriage ${cmd} exited ${r.status}: ${r.stderr}`);
  return readCliOut(out);
}

/** Wait for the report of the next run after `runs` (a re-run from a control). */
async function nextRun(page, runs, timeout = 120_000) {
  await page.waitForFunction((n) => window.__gputriage.runs > n && ['done', 'error'].includes(document.body.dataset.state), runs, { timeout });
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state === 'error') assert.fail(`page error: ${await page.textContent('#error')}`);
}

async function download(page, locator) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.locator(locator).click()]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync(await d.path()) };
}

async function pageArtifacts(page) {
  const names = await page.locator('#export ul.artifacts a').allTextContents();
  // Chromium lets a page start ten downloads and then drops the rest
  // silently, so one link is clicked end to end and the others' bytes come
  // from the "All as .zip" download, which the page builds from the same
  // texts as the links.
  const first = await download(page, `#export ul.artifacts a[download="${names[0]}"]`);
  assert.equal(first.name, names[0]);
  const z = await download(page, '#export a[download$=".zip"]');
  const got = unzip(z.bytes);
  assert.deepEqual(Object.keys(got).sort(), [...names].sort(), 'the zip holds every linked artifact');
  assert.ok(first.bytes.equals(got[names[0]]), `${names[0]}: link and zip bytes agree`);
  return got;
}

/** An artifact's text without its run_id line (which names all the inputs of a run). */
function withoutRunID(buf) {
  return buf.toString().replace(/^  "run_id": "[^"]*",\n/m, '');
}

function assertSameArtifacts(got, want, label) {
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${label}: artifact names`);
  for (const n of Object.keys(want)) assert.ok(Buffer.compare(got[n], want[n]) === 0, `${label}: ${n} differs from the CLI's`);
}

/** Minimal reader for our STORE zips: checks CRCs, returns name → bytes. */
function unzip(buf) {
  const files = {};
  let o = 0;
  while (buf.readUInt32LE(o) === 0x04034b50) {
    assert.equal(buf.readUInt16LE(o + 8), 0, 'zip: method is store');
    const crc = buf.readUInt32LE(o + 14), size = buf.readUInt32LE(o + 18), nlen = buf.readUInt16LE(o + 26);
    const name = buf.toString('utf8', o + 30, o + 30 + nlen);
    const data = buf.subarray(o + 30 + nlen, o + 30 + nlen + size);
    assert.equal(zlib.crc32(data), crc, `zip: crc of ${name}`);
    files[name] = Buffer.from(data);
    o += 30 + nlen + size;
  }
  assert.equal(buf.readUInt32LE(buf.length - 22), 0x06054b50, 'zip: end of central directory');
  assert.equal(buf.readUInt16LE(buf.length - 22 + 10), Object.keys(files).length, 'zip: entry count');
  return files;
}

async function shot(page, name) {
  const file = path.join(ART_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

// A valid Kineto trace, gzip-streamed to disk: cpu_op → runtime → kernel
// triples on two streams, ~rawMB of JSON. Names are drawn from a small set
// (as in real traces) so the analyzer's interning is exercised.
async function generateTrace(file, rawMB, { kernelNames, opNames } = {}) {
  const names = kernelNames ?? [
    'Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_ISA942_WG64_4_1',
    'void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)> >(int, at::native::direct_copy_kernel_cuda)',
    'paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1>',
    'aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 256, 16, true, false, true, 1>',
    'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
  ];
  const ops = (opNames ?? ['aten::mm', 'aten::copy_', 'vllm::paged_attention', 'aiter::rmsnorm', 'c10d::allreduce_']).map((n) => JSON.stringify(n));
  const gz = zlib.createGzip({ level: 1 });
  const out = fs.createWriteStream(file);
  gz.pipe(out);
  const done = new Promise((res, rej) => { out.on('finish', res); out.on('error', rej); gz.on('error', rej); });
  let written = 0;
  const write = (s) => {
    written += Buffer.byteLength(s);
    return gz.write(s) ? null : new Promise((r) => gz.once('drain', r));
  };
  await write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, ' +
    '"computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304}], "hip_runtime_version": 70253211, ' +
    '"displayTimeUnit": "ms", "traceEvents": [\n');
  const limit = rawMB * 1e6;
  let i = 0, ts = 1_000_000;
  while (written < limit) {
    let chunk = '';
    for (let k = 0; k < 500; k++, i++) {
      const n = i % names.length, ext = 100000 + i, corr = 5000 + i, stream = n === 4 ? 9 : 7;
      const kname = JSON.stringify(names[n]);
      chunk += `${i ? ',' : ''}{"ph": "X", "cat": "cpu_op", "name": ${ops[n]}, "pid": 251, "tid": 251, "ts": ${ts.toFixed(3)}, "dur": 12.5, "args": {"External id": ${ext}, "Record function id": 0, "Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"], "Ev Idx": ${i}}}\n` +
        `,{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 251, "tid": 251, "ts": ${(ts + 2).toFixed(3)}, "dur": 6.25, "args": {"External id": ${ext}, "kernel": ${kname}, "cid": 107, "correlation": ${corr}, "grid": [304, 1, 1], "block": [256, 1, 1], "shared memory": 0}}\n` +
        `,{"ph": "X", "cat": "kernel", "name": ${kname}, "pid": 0, "tid": ${stream}, "ts": ${(ts + 10).toFixed(3)}, "dur": ${(8 + (i % 7)).toFixed(3)}, "args": {"External id": ${ext}, "device": 0, "stream": ${stream}, "correlation": ${corr}, "kind": "Dispatch Kernel", "grid": [304, 1, 1], "block": [256, 1, 1]}}\n`;
      ts += 20;
    }
    await write(chunk);
  }
  await write(']}\n');
  gz.end();
  await done;
  return { raw: written, gz: fs.statSync(file).size, kernels: i };
}

// ---------------------------------------------------------------- tests

test('served: real traces give artifacts byte-identical to the CLI', async () => {
  const s = await openPage(`${base}/`);
  try {
    for (const [label, file] of Object.entries(TRACES)) {
      const t0 = Date.now();
      await drop(s.page, [file]);
      const got = await pageArtifacts(s.page);
      assertSameArtifacts(got, cliArtifacts(file), label);
      const stats = await s.page.evaluate(() => window.__gputriage.stats);
      note(`${label}: ${Object.keys(got).length} artifacts identical · ${(stats.rawBytes / 1e6).toFixed(1)} MB raw in ${stats.seconds.toFixed(2)} s (${stats.mbps.toFixed(0)} MB/s in page, ${Date.now() - t0} ms wall) · module memory ${(stats.memory / 2 ** 20).toFixed(1)} MiB`);
      // Report views are there and fed by the artifacts.
      assert.ok(await s.page.locator('#kernels tbody tr').count() > 0, `${label}: kernel rows`);
      assert.ok(await s.page.locator('#breakdown .stage').count() > 0, `${label}: stages`);
      assert.ok(await s.page.locator('#lanes canvas').count() > 0, `${label}: lanes`);
    }
    // The zip holds exactly the same bytes.
    const z = await download(s.page, '#export a[download$=".zip"]');
    assertSameArtifacts(unzip(z.bytes), cliArtifacts(TRACES.h100), 'zip');
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('served: a dropped config.json is the model config: artifacts equal the CLI\'s --model-config', async () => {
  // One vllm::moe_forward whose shapes lack top-k and expert weights (the
  // shapes vllm_decode_full's capture trace records for gpt-oss's MoE, without
  // the ops inside it); gpt-oss-20b's config.json gives them.
  const dir = fs.mkdtempSync(path.join(TMP, 'cfg-'));
  const trace = path.join(dir, 'moe.json'), cfg = path.join(dir, 'config.json');
  fs.writeFileSync(trace, JSON.stringify({ deviceProperties: [{ id: 0, name: 'AMD Instinct MI300X', computeMajor: 9, computeMinor: 4, numSms: 304 }], traceEvents: [
    { ph: 'X', cat: 'cpu_op', name: 'vllm::moe_forward', pid: 100, tid: 100, ts: 1000, dur: 50,
      args: { 'External id': 1, 'Input Dims': [[32, 2880], [32, 32], []], 'Input type': ['c10::BFloat16', 'c10::BFloat16', ''], 'Concrete Inputs': ['', '', ''] } },
    { ph: 'X', cat: 'cuda_runtime', name: 'hipLaunchKernel', pid: 100, tid: 100, ts: 1010, dur: 5, args: { 'External id': 1, correlation: 7 } },
    { ph: 'X', cat: 'kernel', name: '_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu', pid: 2, tid: 0, ts: 1020, dur: 100, args: { 'External id': 1, device: 2, stream: 0, correlation: 7 } },
  ] }));
  fs.writeFileSync(cfg, JSON.stringify({ architectures: ['GptOssForCausalLM'], hidden_size: 2880, intermediate_size: 2880, num_local_experts: 32,
    num_experts_per_tok: 4, hidden_act: 'silu', num_attention_heads: 64, num_key_value_heads: 8, torch_dtype: 'bfloat16', quantization_config: { quant_method: 'mxfp4' } }));
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [trace, cfg]);
    const got = await pageArtifacts(s.page);
    assertSameArtifacts(got, cliArtifacts(trace, 'breakdown', ['--model-config', cfg]), 'trace + config.json');
    const row = JSON.parse(got['roofline.json']).rows[0];
    assert.equal(row.modelled_share, 1, 'the MoE row is modelled');
    assert.match(row.source, /top_k 4 from the model config/);
    // The config alone is no input.
    await s.page.setInputFiles('#pick-files', [cfg]);
    await s.page.waitForFunction(() => document.body.dataset.state === 'error' || !document.querySelector('#error').hidden);
    assert.match(await s.page.textContent('#error'), /model config\.json alone/);
  } finally {
    await s.close();
  }
});

test('served: the run identity form reaches profile_metadata.json, same bytes as the CLI flags', async () => {
  const s = await openPage(`${base}/`);
  try {
    await s.page.click('details.identity summary');
    await s.page.fill('details.identity input[name=experiment_id]', 'exp-7');
    await s.page.fill('details.identity input[name=gpu_device_ids]', '0,1');
    await s.page.selectOption('details.identity select[name=preflight_passed]', 'true');
    await drop(s.page, [TRACES.h100]);
    const got = await pageArtifacts(s.page);
    assertSameArtifacts(got, cliArtifacts(TRACES.h100, 'breakdown', ['--experiment-id', 'exp-7', '--gpu-device-ids', '0,1', '--preflight-passed=true']), 'identity');
    const meta = JSON.parse(got['profile_metadata.json'].toString());
    assert.equal(meta.experiment_id, 'exp-7');
    assert.deepEqual(meta.gpu_device_ids, [0, 1]);
    assert.equal(meta.preflight_passed, true);
    assert.equal(await s.page.evaluate(() => localStorage.length + sessionStorage.length), 0, 'remembered nowhere');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('served: kernel table sorts, filters and limits', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [TRACES.mi300]);
    const rows = s.page.locator('#kernels tbody tr');
    assert.equal(await rows.count(), 25, 'top 25 by default');

    const times = async () => (await s.page.locator('#kernels tbody td:nth-child(7)').allTextContents());
    await s.page.locator('#kernels select[aria-label="rows shown"]').selectOption('0');
    const all = await rows.count();
    assert.ok(all > 25, `all rows (${all})`);
    await s.page.keyboard.press('/');
    await s.page.keyboard.type('gemm');
    const filtered = await rows.count();
    assert.ok(filtered > 0 && filtered < all, `filter narrows (${filtered}/${all})`);
    await s.page.locator('#kernels th button', { hasText: 'launches' }).click();
    assert.equal(await s.page.locator('#kernels th[aria-sort="descending"]').count(), 1);
    assert.ok((await times()).length === filtered);
    // The roofline: a chart with points under the roof lines, and its table.
    assert.ok(await s.page.locator('#roofline svg.roofline circle.rl-pt').count() > 0, 'roofline points');
    assert.ok(await s.page.locator('#roofline svg.roofline polyline.rl-roof').count() > 0, 'roofline roofs');
    assert.ok(await s.page.locator('#roofline tbody tr').count() > 0, 'roofline rows');
    // Why the GPU idles: the split bar, the culprits and the launch verdict.
    assert.ok(await s.page.locator('#idle .tlbar span').count() > 0, 'idle split bar');
    assert.ok(await s.page.locator('#idle table.data tbody tr').count() > 0, 'idle culprit / launch rows');
    assert.match(await s.page.locator('#idle').textContent(), /Launch statistics.*(cpu-bound|gpu-bound|device-waits)/s);
    await s.page.locator('#roofline').evaluate((e) => e.scrollIntoView());
    await shot(s.page, 'roofline-light');
  } finally {
    await s.close();
  }
});

// At 1280 px every column of the kernel table fits the panel (the SGLang
// decode trace shows the optional graph and Python columns): long names end
// in an ellipsis inside their column, none runs past the panel's edge.
test('served: the kernel table fits the panel at 1280 px', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [TRACES.rocmDecode]);
    const heads = await s.page.locator('#kernels thead th').allTextContents();
    assert.ok(heads.some((t) => t.includes('Python')) && heads.some((t) => t.includes('graph')), `optional columns shown: ${heads.join(', ')}`);
    const [scroll, client] = await s.page.locator('#kernels .tablewrap').evaluate((w) => [w.scrollWidth, w.clientWidth]);
    assert.ok(scroll <= client, `kernel table wider than its panel: ${scroll} > ${client} px`);
  } finally {
    await s.close();
  }
});

test('served: crash log + trace together give both sections', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [TRACES.rocmDecode, CRASH_LOG]);
    assert.ok(await s.page.locator('#kernels tbody tr').count() > 0, 'kernel table');
    assert.ok(await s.page.locator('#crash article.finding').count() > 0, 'crash findings');
    assert.ok(await s.page.locator('#crash .evidence li').count() > 0, 'evidence lines');
    const names = await s.page.locator('#export ul.artifacts a').allTextContents();
    for (const n of ['profile_summary.md', 'kernel_table.json', 'crash_summary.md', 'crash_diagnosis.json']) assert.ok(names.includes(n), `artifact ${n}`);
    // The log's own artifacts are the CLI's `diagnose` output.
    const want = cliArtifacts(CRASH_LOG, 'diagnose');
    for (const n of Object.keys(want)) {
      const got = await download(s.page, `#export ul.artifacts a[download="${n}"]`);
      // run_id names the whole run (trace + log): the rest is the CLI's bytes.
      assert.equal(withoutRunID(got.bytes), withoutRunID(want[n]), `${n} equals the CLI's`);
    }
    for (const scheme of ['light', 'dark']) {
      await s.page.emulateMedia({ colorScheme: scheme });
      await s.page.locator('#summary').scrollIntoViewIfNeeded();
      await shot(s.page, `report-${scheme}`);
      await s.page.locator('#kernels').evaluate((e) => e.scrollIntoView());
      await shot(s.page, `kernels-${scheme}`);
      await s.page.locator('#timeline').evaluate((e) => e.scrollIntoView());
      await shot(s.page, `timeline-${scheme}`);
      await s.page.locator('#lanes').evaluate((e) => e.scrollIntoView());
      await shot(s.page, `lanes-${scheme}`);
      await s.page.locator('#crash').evaluate((e) => e.scrollIntoView());
      await shot(s.page, `crash-${scheme}`);
    }
    note(`screenshots in ${path.relative(ROOT, ART_DIR)}/`);
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('served: saved report reopens offline with the same views', async () => {
  const s = await openPage(`${base}/`);
  let saved;
  try {
    await drop(s.page, [TRACES.rocmDecode, CRASH_LOG]);
    const d = await download(s.page, '#export a[download$=".html"]');
    saved = path.join(TMP, d.name);
    fs.writeFileSync(saved, d.bytes);
  } finally {
    await s.close();
  }
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  const requests = [];
  const errors = [];
  // blob: URLs are the page's own workers (the gunzip worker starts one per file), not network.
  context.on('request', (r) => { if (!r.url().startsWith('blob:')) requests.push(r.url()); });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.goto(pathToFileURL(saved).href);
    await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: 10_000 });
    assert.ok(await page.locator('#kernels tbody tr').count() > 0, 'kernel table');
    assert.ok(await page.locator('#crash article.finding').count() > 0, 'crash findings');
    const got = await pageArtifacts(page);
    // The CLI gets the same two files (run_id covers every input), side by side.
    const dir = fs.mkdtempSync(path.join(TMP, 'saved-'));
    const both = [TRACES.rocmDecode, CRASH_LOG].map((f) => { const c = path.join(dir, path.basename(f)); fs.copyFileSync(f, c); return c; });
    const noCrash = (a) => Object.fromEntries(Object.entries(a).filter(([n]) => !n.startsWith('crash')));
    assertSameArtifacts(noCrash(got), noCrash(cliArtifacts(both)), 'saved report');
    assert.deepEqual(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('blob:')), [], 'no network requests');
    assert.deepEqual(errors, [], 'no console errors (CSP violations included)');
    note(`saved report ${(fs.statSync(saved).size / 1e3).toFixed(0)} KB`);
  } finally {
    await context.close();
  }
});

test('served: triage of a graph-off + graph-on pair equals the CLI\'s triage', async () => {
  const s = await openPage(`${base}/`);
  try {
    const t0 = Date.now();
    await drop(s.page, PAIR);
    const stats = await s.page.evaluate(() => window.__gputriage.stats);
    assert.equal(stats.command, 'triage', 'auto picks triage for two traces');
    const got = await pageArtifacts(s.page);
    for (const n of ['overlap_opportunities.json', 'fuse_opportunities.json']) assert.ok(n in got, `artifact ${n}`);
    assertSameArtifacts(got, cliArtifacts(PAIR, 'triage'), 'triage');
    const ovRows = await s.page.locator('#overlap tbody tr').count();
    const fuRows = await s.page.locator('#fuse tbody tr').count();
    assert.ok(ovRows > 0, 'overlap rows');
    assert.ok(fuRows > 0, 'fuse rows');
    const ov = JSON.parse(got['overlap_opportunities.json']);
    const fu = JSON.parse(got['fuse_opportunities.json']);
    assert.equal(ovRows, ov.rows.length, 'one table row per overlap row');
    assert.equal(fuRows, fu.rows.length, 'one table row per fuse row');
    // Long names are whole on hover; the summary figures are there.
    assert.equal(await s.page.locator('#overlap tbody td.kname').first().getAttribute('title').then((t) => t.split('\n')[0]), ov.rows[0].kernel, 'module order, full name on hover');
    assert.match(await s.page.locator('#overlap .kpis').textContent(), /mapping coverage/);
    // Filter and sort like the kernel table.
    await s.page.locator('#overlap input.filter').fill('decode');
    const dec = await s.page.locator('#overlap tbody tr').count();
    assert.equal(dec, ov.rows.filter((r) => r.stage === 'decode').length, 'filter by stage name');
    await s.page.locator('#overlap input.filter').fill('');
    await s.page.locator('#fuse th button', { hasText: 'share' }).click();
    assert.equal(await s.page.locator('#fuse th[aria-sort="descending"]').count(), 1);
    // The module paired them itself; the role toggles say how.
    const role = (n) => s.page.locator(`select[aria-label="triage role of ${path.basename(n)}"]`);
    assert.match(await role(PAIR[1]).locator('option:checked').textContent(), /auto \(formal\)/);
    assert.match(await role(PAIR[0]).locator('option:checked').textContent(), /auto \(mapping\)/);
    note(`triage pair: ${Object.keys(got).length} artifacts identical to \`gputriage triage\`, ${ovRows} overlap rows, ${fuRows} fuse rows, ${Date.now() - t0} ms wall`);

    for (const scheme of ['light', 'dark']) {
      await s.page.emulateMedia({ colorScheme: scheme });
      await s.page.evaluate(() => window.scrollTo(0, 0));
      await shot(s.page, `triage-summary-${scheme}`);
      for (const id of ['overlap', 'fuse', 'lanes']) {
        await s.page.locator(`#${id}`).evaluate((e) => e.scrollIntoView());
        await shot(s.page, `triage-${id}-${scheme}`);
      }
    }
    await s.page.emulateMedia({ colorScheme: 'light' });

    // Override: the graph-off trace as the formal one → --formal.
    const runs = await s.page.evaluate(() => window.__gputriage.runs);
    await role(PAIR[0]).selectOption('formal');
    await nextRun(s.page, runs);
    const got2 = await pageArtifacts(s.page);
    assert.equal(JSON.parse(got2['overlap_opportunities.json']).summary.formal_file, path.basename(PAIR[0]));
    // --formal FILE also makes FILE an input, first: the page's order.
    assertSameArtifacts(got2, cliArtifacts([PAIR[1]], 'triage', ['--formal', path.basename(PAIR[0])]), 'triage --formal');
    assert.equal(await role(PAIR[0]).inputValue(), 'formal', 'role kept across the re-run');
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('served: command choice; triage with a crash log keeps the diagnosis', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [...PAIR, CRASH_LOG]);
    assert.equal((await s.page.evaluate(() => window.__gputriage.stats)).command, 'triage');
    assert.ok(await s.page.locator('#overlap tbody tr').count() > 0, 'overlap rows');
    assert.ok(await s.page.locator('#crash article.finding').count() > 0, 'crash findings');
    const want = cliArtifacts(CRASH_LOG, 'diagnose');
    for (const n of Object.keys(want)) {
      const got = await download(s.page, `#export ul.artifacts a[download="${n}"]`);
      // run_id names the whole run (trace + log): the rest is the CLI's bytes.
      assert.equal(withoutRunID(got.bytes), withoutRunID(want[n]), `${n} equals the CLI's`);
    }
    // breakdown on demand: no opportunity tables, both traces in one breakdown.
    const runs = await s.page.evaluate(() => window.__gputriage.runs);
    await s.page.selectOption('#command', 'breakdown');
    await nextRun(s.page, runs);
    assert.equal((await s.page.evaluate(() => window.__gputriage.stats)).command, 'breakdown');
    assert.equal(await s.page.locator('#overlap').count(), 0, 'no overlap section');
    assert.ok(await s.page.locator('#crash article.finding').count() > 0, 'crash findings still');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('served: rank files get the per-rank table (tp_rank0 + tp_rank1)', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, RANKS);
    const stats = await s.page.evaluate(() => window.__gputriage.stats);
    assert.equal(stats.command, 'auto', 'rank files of one job are not a triage pair');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(RANKS, 'breakdown'), 'ranks');
    assert.equal(await s.page.locator('#ranks table.ranks tbody tr').count(), 2, 'one row per rank');
    // Two stages: the kernel table's status sums GPU time, not per-stage shares.
    const shown = Number(/shown ([\d.]+)% of GPU time/.exec(await s.page.locator('#kernels .toolbar .status').textContent())?.[1]);
    assert.ok(shown > 0 && shown <= 100, `kernel table shows ${shown}% of GPU time`);
    assert.match(await s.page.locator('#ranks tr[data-rank="1"]').textContent(), /most waiting/);
    assert.match(await s.page.locator('#ranks tr[data-rank="0"]').textContent(), /slowest/);
    assert.match(await s.page.locator('#ranks .headline').textContent(), /^Rank 1 spends the most time inside collectives \(666\.\d+ ms more than rank 0\)/);
    note(`ranks: ${(stats.rawBytes / 1e6).toFixed(0)} MB raw in ${stats.seconds.toFixed(1)} s; ${await s.page.locator('#ranks .headline').textContent()}`);
    for (const scheme of ['light', 'dark']) {
      await s.page.emulateMedia({ colorScheme: scheme });
      await s.page.locator('#ranks').evaluate((e) => e.scrollIntoView());
      await shot(s.page, `ranks-${scheme}`);
      await s.page.locator('#lanes').evaluate((e) => e.scrollIntoView());
      await shot(s.page, `ranks-lanes-${scheme}`);
    }
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

// ---- ranks apart (issue 19): rank selector, rank × step heatmap, collectives table
const DLRM = fs.existsSync(`${SHARED}/traces2/param_dlrm_v100_8rank`) ?
  fs.readdirSync(`${SHARED}/traces2/param_dlrm_v100_8rank`).filter((n) => n.endsWith('.json.gz')).sort().map((n) => `${SHARED}/traces2/param_dlrm_v100_8rank/${n}`) : [];

test('ranks apart: selector switches the per-rank breakdown/timeline, the fragment keeps it (DLRM 8 ranks)', async () => {
  assert.equal(DLRM.length, 8, 'the DLRM rank traces');
  const s = await openPage(`${base}/#rank=5`);
  try {
    await drop(s.page, DLRM);
    const cli = cliArtifacts(DLRM, 'breakdown');
    assertSameArtifacts(await pageArtifacts(s.page), cli, 'DLRM ranks');
    const sel = s.page.locator('#ranks #rank-select');
    assert.deepEqual(await sel.locator('option').allTextContents(), ['all ranks', ...[0, 1, 2, 3, 4, 5, 6, 7].map((r) => `rank ${r}`)]);
    // the fragment chose rank 5 before the drop
    assert.equal(await sel.inputValue(), '5');
    assert.match(await s.page.locator('#rank-breakdown h2').textContent(), /^Rank 5: /);
    for (const r of [3, 0]) {
      await sel.selectOption(String(r));
      assert.match(new URL(s.page.url()).hash, new RegExp(`(^#|&)rank=${r}($|&)`), 'the fragment keeps the selection');
      const bd = JSON.parse(cli[`ranks/${r}/breakdown.json`].toString());
      const tl = JSON.parse(cli[`ranks/${r}/gpu_timeline.json`].toString());
      const text = await s.page.locator('.rankview').textContent();
      assert.match(await s.page.locator('#rank-breakdown h2').textContent(), new RegExp(`^Rank ${r}: `));
      assert.ok(text.includes(`${bd.stages[0].kernel_count} kernels`), `rank ${r}: its own kernel count (${bd.stages[0].kernel_count})`);
      assert.ok(await s.page.locator('#rank-timeline').count() === 1 && tl.total_time_us > 0, `rank ${r}: its timeline`);
      assert.equal(await s.page.locator('#breakdown').count(), 1, 'the report\'s own breakdown stays (ids not repeated)');
    }
    await sel.selectOption('');
    assert.ok(!/rank=/.test(new URL(s.page.url()).hash), 'all ranks: no rank in the fragment');
    assert.equal(await s.page.locator('#rank-breakdown').count(), 0);
    // all ranks: the report's sections are the lowest rank's figures, said so
    assert.equal(JSON.parse(cli['profile_metadata.json'].toString()).figures_rank, 0);
    assert.match(await s.page.locator('.rankview').textContent(), /rank 0's own figures/);
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('ranks apart: rank × step heatmap and the collectives table sort by skew and busbw', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, DLRM);
    const rj = JSON.parse(cliArtifacts(DLRM)['ranks.json'].toString());
    // DLRM: one profiler step, rank 7 the straggler (dlrm_collectives.key.json)
    const heat = s.page.locator('#ranks table.heat');
    assert.equal(await heat.locator('tbody tr').count(), 8, 'one heatmap row per rank');
    assert.equal(await heat.locator('thead th.step').count(), rj.steps.length);
    assert.equal(await heat.locator('td.cell.lead').count(), rj.steps.length, 'one straggler per step');
    assert.equal(await heat.locator('tbody tr').nth(7).locator('td.cell.lead').count(), 1, 'rank 7 leads the step');
    assert.match(await s.page.locator('#ranks .straggler').textContent(), /^Across ranks: rank 7 arrived last/);
    // ranks 6 and 2 also held ranks 1 and 3 at the step's entry (ranks.json late_ranks)
    assert.deepEqual(rj.steps[0].late_ranks.map((l) => l.rank), [6, 2]);
    assert.match(await s.page.locator('#ranks .alsolate').textContent(), /^Also late: ProfilerStep#10: rank 6 \(7\.12 ms\), rank 2 \(7\.12 ms\) at sendrecv #0, besides rank 7/);
    assert.equal(await heat.locator('td.cell.late').count(), 2, 'the late ranks\' cells dotted');
    assert.equal(await heat.locator('tbody tr').nth(6).locator('td.cell.late').count(), 1);
    await s.page.locator('#ranks .alsolate').scrollIntoViewIfNeeded();
    await s.page.locator('#ranks').screenshot({ path: path.join(ART_DIR, 'ranks-late.png') });
    const rows = s.page.locator('#ranks table.collectives tbody tr');
    assert.equal(await rows.count(), 8, 'every matched instance');
    // sorted by skew, largest first: sendrecv #0, 7.624 ms, rank 7 last
    assert.match(await rows.first().textContent(), /sendrecv #0.*7\.62 ms/);
    await s.page.locator('#ranks table.collectives th button', { hasText: 'skew' }).click();
    assert.match(await rows.first().textContent(), /allreduce #0|sendrecv #3/, 'ascending: the smallest skew first');
    await s.page.locator('#ranks table.collectives th button', { hasText: 'busbw' }).click();
    assert.equal(await s.page.locator('#ranks table.collectives th[aria-sort="descending"]').textContent(), 'busbw GB/s ▾');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});
/** Two generated ranks of 4 profiler steps × 10 all-reduces: rank 1 usually 20–30 µs behind, and
 *  5 ms behind at all-reduce #25 (a stall: a real one planted into the H200 pair takes minutes to
 *  write and read here; tools/plantstraggler and TestStragglerBlindScore cover those). */
function stallTraces(dir) {
  const files = [];
  for (const rank of [0, 1]) {
    const ev = [];
    let corr = 1;
    for (let st = 0; st < 4; st++) ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${st}`, pid: 1, tid: 1, ts: st * 100000, dur: 100000 });
    for (let i = 0; i < 40; i++) {
      const t0 = i * 10000 + 2000;
      const lag = 20 + (i * 7) % 11 + (i === 25 ? 5000 : 0);
      const late = rank === 1 ? lag : 0;
      const g = t0 - 400 + late;
      ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: g - 30, dur: 5, args: { correlation: corr } });
      ev.push({ ph: 'X', cat: 'kernel', name: 'ampere_sgemm_128x64_tn', pid: 0, tid: 7, ts: g, dur: 300, args: { stream: 7, correlation: corr++, device: 0 } });
      const s = t0 + late;
      ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: s - 30, dur: 5, args: { correlation: corr } });
      ev.push({ ph: 'X', cat: 'kernel', name: 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)', pid: 0, tid: 17, ts: s, dur: t0 + lag + 40 - s,
        args: { stream: 17, correlation: corr++, device: 0, 'Collective name': 'allreduce', 'In msg nelems': 1048576, 'Out msg nelems': 1048576, dtype: 'Float', 'Group size': 2, 'Process Group Name': '0', 'Process Group Description': 'default_pg' } });
    }
    const doc = { schemaVersion: 1, distributedInfo: { backend: 'nccl', rank, world_size: 2 }, deviceProperties: [{ id: 0, name: 'NVIDIA H100 80GB HBM3', computeMajor: 9, computeMinor: 0, numSms: 132, totalGlobalMem: 85000000000 }], traceEvents: ev };
    const f = `${dir}/stall_rank${rank}.json`;
    fs.writeFileSync(f, JSON.stringify(doc));
    files.push(f);
  }
  return files;
}

test('ranks apart: a stall is listed and marked in the heatmap', async () => {
  const files = stallTraces(fs.mkdtempSync(path.join(TMP, 'stall-')));
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, files);
    const rj = JSON.parse(cliArtifacts(files)['ranks.json'].toString());
    assert.deepEqual(rj.stalls.map((st) => [st.rank, st.kind, st.index, st.step]), [[1, 'allreduce', 25, 'ProfilerStep#2']], 'the CLI names the stall');
    const rows = s.page.locator('#ranks table.stalls tbody tr');
    assert.equal(await rows.count(), 1, 'one row per stall');
    assert.match(await rows.first().textContent(), /^1ProfilerStep#2allreduce #25 \(pg 0 default_pg\)5\.00\d? ms/);
    assert.equal(await s.page.locator('#ranks table.stalls tr[data-stall-rank="1"]').count(), 1);
    const heat = s.page.locator('#ranks table.heat');
    assert.equal(await heat.locator('td.cell.stall').count(), 1, 'one marked cell: the step with the stall');
    assert.equal(await heat.locator('tbody tr[data-heat-rank="1"] td.cell.stall').count(), 1, 'in rank 1\'s row');
    assert.match(await heat.locator('td.cell.stall').getAttribute('title'), /^rank 1 · ProfilerStep#2: .* stall at allreduce #25 \(pg 0 default_pg\), 5\.00\d? ms past its usual arrival$/);
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});
// ---- end ranks apart

test('served: Fix for Perfetto gives the CLI\'s perfetto-fix bytes', async () => {
  const out = fs.mkdtempSync(path.join(TMP, 'fix-'));
  const r = spawnSync(CLI, ['perfetto-fix', '-q', '-o', out, path.basename(OVERLAPPING)], { cwd: path.dirname(OVERLAPPING), encoding: 'utf8' });
  assert.equal(r.status, 0, `perfetto-fix exited ${r.status}: ${r.stderr}`);
  const want = fs.readFileSync(path.join(out, 'perfetto_fixed_trace.json'));
  const wantReport = fs.readFileSync(path.join(out, 'perfetto_fix_report.json'));
  assert.equal(JSON.parse(wantReport).overlaps, 74, 'the test trace has 74 same-lane overlaps');
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [OVERLAPPING]);
    const fixOnce = async (gzip) => {
      await s.page.locator('label.fixopt input').setChecked(gzip);
      await s.page.locator(`button.fix[data-file="${path.basename(OVERLAPPING)}"]`).click();
      await s.page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.fix), null, { timeout: 120_000 });
      assert.equal(await s.page.evaluate(() => document.body.dataset.fix), 'done', await s.page.locator('.fixpanel').textContent());
      assert.doesNotMatch(await s.page.locator('.fixpanel').textContent(), /\b(false|undefined|null|NaN)\b/, 'no stray values in the fix panel');
      const d = await download(s.page, '.fixpanel a.fixed');
      const rep = await download(s.page, '.fixpanel a[download="perfetto_fix_report.json"]');
      assert.ok(Buffer.compare(rep.bytes, wantReport) === 0, 'perfetto_fix_report.json equals the CLI\'s');
      return d;
    };
    const plain = await fixOnce(false);
    assert.equal(plain.name, 'perfetto_fixed_trace.json');
    assert.ok(Buffer.compare(plain.bytes, want) === 0, `fixed trace equals the CLI's (${plain.bytes.length} vs ${want.length} bytes)`);
    const p = await s.page.evaluate(() => window.__gputriage.progress);
    assert.equal(p.pass, 2, 'progress went through two passes');
    const gz = await fixOnce(true);
    assert.equal(gz.name, 'perfetto_fixed_trace.json.gz');
    assert.ok(Buffer.compare(zlib.gunzipSync(gz.bytes), want) === 0, 'gunzipped .json.gz equals the CLI\'s');
    const st = await s.page.evaluate(() => window.__gputriage.fix);
    note(`perfetto-fix: ${(want.length / 1e6).toFixed(1)} MB identical to the CLI's (plain and gunzipped ${(gz.bytes.length / 1e6).toFixed(1)} MB .gz) in ${st.seconds.toFixed(2)} s, module memory ${(st.memory / 2 ** 20).toFixed(0)} MiB; ${await s.page.locator('.fixpanel p').first().textContent()}`);
    await s.page.locator('#summary').evaluate((e) => e.scrollIntoView());
    await shot(s.page, 'perfetto-fix-light');
    // The analysis report is still there and the next drop still works.
    assert.ok(await s.page.locator('#kernels tbody tr').count() > 0, 'report kept');
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    // Open in Perfetto: an explicit action that opens ui.perfetto.dev in a new
    // tab and posts it the fixed trace (a stand-in page answers here).
    const btn = s.page.locator('.fixpanel button.perfetto');
    assert.match(await btn.textContent(), /Open in Perfetto \(new tab\)/);
    assert.match(await btn.getAttribute('title'), /new tab/);
    await s.context.route('https://ui.perfetto.dev/**', (r) => r.fulfill({ contentType: 'text/html',
      body: '<script>addEventListener("message",(e)=>{if(e.data==="PING")e.source.postMessage("PONG","*");else if(e.data&&e.data.perfetto)window.got=e.data.perfetto.buffer.byteLength;})</script>' }));
    const [popup] = await Promise.all([s.context.waitForEvent('page'), btn.click()]);
    await popup.waitForFunction(() => window.got > 0, null, { timeout: 30_000 });
    assert.equal(await popup.evaluate(() => window.got), gz.bytes.length, 'Perfetto got the fixed trace');
    assert.ok(s.requestsAfterLoad().every((u) => u.startsWith('https://ui.perfetto.dev')), 'only the Perfetto tab made a request');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('served: wrong wasm MIME type falls back to compile(arrayBuffer)', async () => {
  const s = await openPage(`${base}/badmime/`);
  try {
    await drop(s.page, [TRACES.rocmDecode]);
    assert.ok(await s.page.locator('#kernels tbody tr').count() > 0);
  } finally {
    await s.close();
  }
});

test('inline build works from file:// with no network at all', async () => {
  const url = pathToFileURL(INLINE).href;
  const t0 = Date.now();
  const s = await openPage(url);
  note(`file:// page ready (module compiled in the worker) in ${Date.now() - t0} ms; compile ${(await s.page.evaluate(() => window.__gputriage.moduleMs)).toFixed(0)} ms`);
  try {
    await drop(s.page, [TRACES.h100]);
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(TRACES.h100), 'file://');
    const net = s.allRequests().filter((u) => u !== url && !u.startsWith('blob:'));
    assert.deepEqual(net, [], 'no requests besides the page itself');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

// Issue 12: from navigation to the rendered report, the file dropped as soon
// as the page is interactive (before the module is ready: the worker queues
// it). Figures per phase go to page-ready.md for BENCHMARKS.md; a reference
// build (GPUTRIAGE_REF_INLINE=path/to/index.html) is measured in the same run.
async function pageReady(html, { settled = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(pathToFileURL(html).href, { waitUntil: 'commit' });
    await page.waitForFunction(() => ['idle'].includes(document.body?.dataset.state), null, { polling: 5, timeout: 60_000 });
    // settled: the user drops once the page has warmed up (module compiled,
    // a throwaway job run, an instance waiting).
    if (settled) await page.waitForFunction(() => window.__gputriage.warmAt != null, null, { timeout: 120_000 });
    const idleAt = await page.evaluate(() => performance.now());
    await page.setInputFiles('#pick-files', [TRACES.rocmDecode]);
    const h = await page.waitForFunction(() => (document.body.dataset.state === 'done' || document.body.dataset.state === 'error') && performance.now(), null, { polling: 5, timeout: 120_000 });
    const doneAt = await h.jsonValue();
    const p = await page.evaluate(() => {
      const g = window.__gputriage;
      const nav = performance.getEntriesByType('navigation')[0];
      const at = (t) => (t == null ? null : t - performance.timeOrigin); // a worker's epoch ms on this page's clock
      return { state: document.body.dataset.state, phases: g.phases ?? null, stats: g.stats, renderMs: g.renderMs, doneAt: g.doneAt ?? null,
        dropAt: g.dropAt ?? null, receivedAt: at(g.stats?.receivedAt), resultAt: g.resultAt ?? null,
        domInteractive: nav?.domInteractive, domContentLoaded: nav?.domContentLoadedEventEnd };
    });
    return { idleAt, ...p, doneAt: p.doneAt ?? doneAt, dropToReport: (p.doneAt ?? doneAt) - idleAt, page, context };
  } catch (err) {
    await context.close();
    throw err;
  }
}

test('file:// page is ready at once: drop the SGLang decode trace → rendered report', async () => {
  // GPUTRIAGE_READY_RUNS=N: N page loads (alternating with the reference
  // build when there is one); figures are medians.
  const n = Number(process.env.GPUTRIAGE_READY_RUNS ?? 1);
  const ref = process.env.GPUTRIAGE_REF_INLINE;
  const f = (x) => (x == null ? '–' : x.toFixed(0));
  const med = (xs) => { const v = xs.filter((x) => x != null).sort((a, b) => a - b); return v.length ? v[v.length >> 1] : null; };
  const runs = [];
  const refRuns = [];
  let first = null;
  for (let i = 0; i < n; i++) {
    const r = await pageReady(INLINE);
    if (first) await r.context.close();
    else first = r;
    assert.equal(r.state, 'done');
    runs.push(r);
    if (ref) {
      const o = await pageReady(ref);
      await o.context.close();
      refRuns.push(o);
    }
  }
  const r = first;
  try {
    const m = (g) => med(runs.map(g));
    const line = `navigation → report ${f(m((x) => x.doneAt))} ms: HTML parsed + script ${f(m((x) => x.domInteractive))} ms, page interactive ${f(m((x) => x.idleAt))} ms, ` +
      `module: first chunk at ${f(m((x) => x.phases?.firstChunkAt))} ms, last chunk at ${f(m((x) => x.phases?.lastChunkAt))} ms (base64 decode ${f(m((x) => x.phases?.decodeMs))} ms), compiled at ${f(m((x) => x.phases?.compiledAt))} ms; ` +
      `dropped at ${f(m((x) => x.dropAt))} ms, job in the worker at ${f(m((x) => x.receivedAt))} ms, instantiate + Go runtime start ${f(m((x) => x.stats.instantiateMs))} ms, ` +
      `analysis ${f(m((x) => x.stats.seconds * 1000))} ms (finish() ${f(m((x) => x.stats.finishSeconds * 1000))} ms), result on the page at ${f(m((x) => x.resultAt))} ms, render ${f(m((x) => x.renderMs))} ms` +
      (n > 1 ? ` (medians of ${n}: ${runs.map((x) => f(x.doneAt)).join(', ')} ms)` : '');
    note(`file:// ${line}`);
    const w = await pageReady(INLINE, { settled: true });
    await w.context.close();
    note(`file:// page warmed up at ${f(w.idleAt)} ms; a drop then → rendered report in ${f(w.dropToReport)} ms (instantiate ${f(w.stats.instantiateMs)}, analysis ${f(w.stats.seconds * 1000)}, render ${f(w.renderMs)} ms)`);
    let refText = '';
    if (ref) {
      refText = `${f(med(refRuns.map((x) => x.doneAt)))} ms (${(fs.statSync(ref).size / 1e6).toFixed(1)} MB page${n > 1 ? `; median of ${n}, alternating with the new build: ${refRuns.map((x) => f(x.doneAt)).join(', ')} ms` : ''})`;
      note(`file:// reference build: navigation → report ${refText}`);
    }
    fs.writeFileSync(path.join(ART_DIR, 'page-ready.md'),
      `| open dist-inline/index.html (${(fs.statSync(INLINE).size / 1e6).toFixed(1)} MB) from file://, drop the 0.6 MB SGLang decode trace at once → rendered report | ${refText || '–'} | **${f(m((x) => x.doneAt))} ms** (${line}); dropped once the page has warmed up (${f(w.idleAt)} ms): **${f(w.dropToReport)} ms** drop → report | ≤ 1.5 s |\n`);
    assertSameArtifacts(await pageArtifacts(r.page), cliArtifacts(TRACES.rocmDecode), 'file:// at once');
  } finally {
    await r.context.close();
  }
});

// A cancel while the module is still arriving: the replacement worker gets
// the chunks seen so far and the rest (jsbridge/worker-blob.js).
test('file:// cancel before the module is ready; the next drop still works', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(pathToFileURL(INLINE).href, { waitUntil: 'commit' });
    await page.waitForFunction(() => document.body?.dataset.state === 'idle', null, { polling: 5, timeout: 60_000 });
    // Dropped and cancelled within one task (setInputFiles alone takes
    // longer than the module needs to arrive).
    const early = await page.evaluate(async (b64) => {
      const file = new File([Uint8Array.fromBase64(b64)], 'early.json.gz');
      const dt = new DataTransfer();
      dt.items.add(file);
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      await new Promise((r) => { const t = () => (document.body.dataset.state === 'working' ? r() : setTimeout(t, 1)); t(); });
      const before = window.__gputriage.moduleMs == null;
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      return before;
    }, fs.readFileSync(TRACES.rocmDecode).toString('base64'));
    await page.waitForFunction(() => ['idle', 'done'].includes(document.body.dataset.state), null, { timeout: 60_000 });
    await drop(page, [TRACES.rocmDecode]);
    assert.ok(await page.locator('#kernels tbody tr').count() > 0, 'the next job ran');
    note(`file:// cancel ${early ? 'before' : 'after'} the module was ready; the next drop rendered its report`);
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await context.close();
  }
});

test('user strings render as text (kernel names, file names, log lines)', async () => {
  const evil = '<img src=x onerror="window.__xss=1">';
  const dir = fs.mkdtempSync(path.join(TMP, 'xss-'));
  const trace = path.join(dir, '<b>trace.json.gz');
  await generateTrace(trace, 1, { kernelNames: [evil, `${evil}2`, 'k3</script><script>window.__xss=2</script>', 'k4', 'k5'] });
  const log = path.join(dir, '<i>crash.log');
  fs.writeFileSync(log, `Memory access fault by GPU node-1 (Agent handle: 0x55) on address 0x7f00. Reason: Page not present or supervisor privilege. ${evil}\n`);
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [trace, log]);
    assert.equal(await s.page.evaluate(() => window.__xss), undefined, 'no script ran');
    assert.equal(await s.page.locator('#report img').count(), 0, 'no injected elements');
    assert.ok(await s.page.getByText(evil, { exact: true }).first().isVisible(), 'kernel name shown literally');
    assert.ok(await s.page.getByText('<b>trace.json.gz').first().isVisible(), 'file name shown literally');
    assert.ok(await s.page.locator('#crash .evidence code', { hasText: evil }).count() > 0, 'log line shown literally');
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests during analysis');
  } finally {
    await s.close();
  }
});

// Issue 24: kernel and op names holding markup, terminal escapes, a bidi
// override and a newline with a code fence are text in every table cell and
// tooltip, their control characters shown as the CLI shows them (\x1b,
// \u{202e}), and the artifacts are the CLI's bytes.
test('hostile cell names: markup and control characters in kernel and op names render as text', async () => {
  const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;
  const kernels = [
    'k6\u061calm\u200elrm\u200frlm\ufeffbom\u2028ls\u2029ps',
    '<img class=pwn src=x onerror="window.__xss=1">Cijk_Alik_Bljk_MT64',
    'k2\x1b]0;pwned title\x07\x1b[2J_ncclDevKernel_AllReduce',
    'k3\u202eevil_attention\u2066',
    'k4\n```\n# Forged heading\n<marquee>pwn</marquee>',
    'k5`code`|pipe|*star*',
  ];
  const ops = ['aten::<svg class=pwn onload="window.__xss=2">', 'aten::op\x1b[31mred', 'op\u202efdp.exe', 'op</td><td>cell', 'c10d::allreduce_'];
  const dir = fs.mkdtempSync(path.join(TMP, 'cells-'));
  const trace = path.join(dir, 'cells.json.gz');
  await generateTrace(trace, 0.2, { kernelNames: kernels, opNames: ops });
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [trace]);
    assert.equal(await s.page.evaluate(() => window.__xss), undefined, 'no script ran');
    assert.equal(await s.page.locator('#report .pwn, #report marquee, #report [onerror], #report [onload]').count(), 0, 'no element from a name');
    const rows = s.page.locator('#kernels tbody tr');
    assert.ok(await rows.count() >= kernels.length, 'a row per kernel');
    const cells = (await s.page.locator('#kernels tbody').innerText());
    // every name is in the table, its controls shown the way escape.Line shows them
    for (const [want, label] of [['\\x1b]0;pwned title\\x07\\x1b[2J', 'ESC and BEL'], ['\\u{202e}evil', 'U+202E'], ['\\u{061c}alm\\u{200e}lrm\\u{200f}rlm\\u{feff}bom\\u{2028}ls\\u{2029}ps', 'the direction marks, U+FEFF, U+2028/9'], ['\\x0a```\\x0a# Forged', 'the newline'],
      ['<img class=pwn', 'img markup'], ['aten::op\\x1b[31mred', 'the op\'s ESC'], ['op</td><td>cell', 'the op\'s markup']]) {
      assert.ok(cells.includes(want) || (await s.page.locator('#kernels tbody [title]').evaluateAll((els, w) => els.some((e) => e.title.includes(w)), want)),
        `${label} shown as text in the kernel table (${JSON.stringify(want)})`);
    }
    // no raw control or bidi character anywhere in the report's text or attributes
    const raw = await s.page.evaluate((src) => {
      const re = new RegExp(src);
      const bad = [];
      const walk = document.createTreeWalker(document.querySelector('#report'), NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
      for (let n = walk.currentNode; n; n = walk.nextNode()) {
        if (n.nodeType === Node.TEXT_NODE && re.test(n.data)) bad.push(`text ${JSON.stringify(n.data.slice(0, 80))}`);
        if (n.nodeType === Node.ELEMENT_NODE) for (const a of n.attributes) if (re.test(a.value)) bad.push(`${n.localName}[${a.name}] ${JSON.stringify(a.value.slice(0, 80))}`);
      }
      return bad;
    }, RAW.source);
    assert.deepEqual(raw, [], 'raw control or bidi characters in the report');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(trace), 'hostile cell names');
    assert.deepEqual(s.errors, [], 'no page errors');
  } finally {
    await s.close();
  }
});

// Issue 24 (tools/hostile): a flight-recorder dump over the default 4 MiB
// side-document limit left the page with "the module could not read these
// files" and no reason; the CLI names the limit and its flag.
test('a side document over its limit: a flagged partial naming the file and the flag, the CLI\'s bytes', async () => {
  const dir = fs.mkdtempSync(path.join(TMP, 'sidedoc-'));
  const f = path.join(dir, 'fr_rank0.json');
  const entries = [];
  for (let i = 1; i <= 4500; i++) {
    const frames = Array.from({ length: 12 }, (_, k) => ({ name: `forward_layer_${k}`, filename: '/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py', line: 1700 + k }));
    entries.push({ record_id: i, pg_id: 0, collective_seq_id: i, profiling_name: 'nccl:all_reduce', state: i === 4500 ? 'started' : 'completed', frames });
  }
  fs.writeFileSync(f, JSON.stringify({ version: '2.4', rank: 0, pg_status: { 0: { last_enqueued_collective: 4500, last_started_collective: 4500, last_completed_collective: 4499 } }, entries }));
  assert.ok(fs.statSync(f).size > 4 << 20, 'the dump is over 4 MiB');
  const s = await openPage(`${base}/`);
  try {
    await s.page.setInputFiles('#pick-files', [f]);
    await s.page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
    const text = (await s.page.locator('#error').isVisible()) ? await s.page.textContent('#error') : await s.page.textContent('#report');
    assert.match(text, /fr_rank0\.json/, 'names the file');
    assert.match(text, /--max-side-doc-bytes/, 'names the limit\'s flag');
    // a flagged partial, not a refusal: the CLI's diagnose bytes, whose
    // crash_diagnosis.json names the file, the limit and the flag
    assert.equal(await s.page.evaluate(() => window.__gputriage.stats.exitCode), 1, 'exit 1 (partial)');
    const got = await pageArtifacts(s.page);
    assertSameArtifacts(got, cliArtifacts(f, 'diagnose'), 'side document over its limit');
    const d = JSON.parse(got['crash_diagnosis.json']);
    assert.equal(d.partial, true);
    assert.match(d.inputs.find((i) => i.name === 'fr_rank0.json')?.problem ?? '', /limit of 4194304 bytes \(--max-side-doc-bytes\)/);
  } finally {
    await s.close();
  }
});

test('64-bit stream ids: stream 2^40+7 is its own lane, not stream 7; artifacts equal the CLI\'s', async () => {
  // stream 2^40+7 overlaps stream 7 on device 0; device 2^40+3 has a stream 7 of its own;
  // stream 2^64+7 is beyond int64: skipped and counted (the file is partial)
  const k = (name, pid, tid, ts, dur) => `{"ph":"X","cat":"kernel","name":"${name}","pid":${pid},"tid":${tid},"ts":${ts},"dur":${dur}}`;
  const dir = fs.mkdtempSync(path.join(TMP, 'ids-'));
  const trace = path.join(dir, 'ids.json');
  fs.writeFileSync(trace, `{"traceEvents":[${[k('gemm_a', 0, 7, 100, 50), k('gemm_b', 0, '1099511627783', 120, 50),
    k('gemm_c', '"GPU 1099511627779"', 7, 300, 5), k('gemm_d', 0, '18446744073709551623', 400, 5)].join(',')}]}`);
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [trace]);
    const lanes = JSON.parse(await s.page.evaluate(() => window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text));
    const text = await s.page.evaluate(() => window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text);
    for (const w of ['"stream": 1099511627783,', '"stream": 7,', '"device": 1099511627779,']) assert.ok(text.includes(w), `gpu_lanes.json has ${w}`);
    assert.equal(lanes.files[0].lanes.length, 3, 'three lanes');
    const rows = await s.page.locator('#lanes table.nums tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].slice(0, 3).map((c) => c.textContent).join(' ')));
    assert.deepEqual(rows, ['0 7 1', '0 1099511627783 1', '1099511627779 7 1'], 'lane numbers: device, stream, ops');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(trace), '64-bit ids');
    assert.deepEqual(s.errors, [], 'no page errors');
  } finally {
    await s.close();
  }
});

// Issue 24: the artifacts list files in the order they are fed. The page
// fed a drop in localeCompare order and the CLI in command-line order, so
// stage-shift-4e18's breakdown.json listed DECODE first on the page and
// EXTEND first from the CLI. Both now feed in byte order of the names
// (Go's; the page no longer uses localeCompare), whatever order the files
// are picked or named in.
test('file order: a drop in any order lists its files in the CLI\'s byte order, same bytes as the CLI', async () => {
  const dir = fs.mkdtempSync(path.join(TMP, 'order-'));
  const names = ['1700000000-TP-0-EXTEND.trace.json', '1700000000-TP-0-PREFILL.trace.json', '1700000000-TP-0-DECODE.trace.json'];
  const files = names.map((n, i) => {
    const f = path.join(dir, n);
    fs.writeFileSync(f, `{"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm_${i}","pid":0,"tid":7,"ts":10,"dur":${5 + i},"args":{"stream":7}}]}`);
    return f;
  });
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, files);
    const bd = JSON.parse(await s.page.evaluate(() => window.__gputriage.result.artifacts.find((a) => a.name === 'breakdown.json').text));
    assert.deepEqual(bd.files.map((f) => f.file), ['1700000000-TP-0-DECODE.trace.json', '1700000000-TP-0-EXTEND.trace.json',
      '1700000000-TP-0-PREFILL.trace.json'], 'breakdown.json: files in byte order');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(files, 'triage'), 'file order'); // EXTEND PREFILL DECODE on the command line (the page's auto runs triage on stage files)
    assert.deepEqual(s.errors, [], 'no page errors');
  } finally {
    await s.close();
  }
});

// Issue 24 (many-threads-100k): 100 k CPU threads and pids, one op each
// launching one kernel. A sweep run of the page once produced no artifacts;
// it must give the CLI's bytes, and the module stay well under 1 GiB.
test('100 k CPU threads and pids: the CLI\'s artifacts, bounded module memory', async () => {
  const n = 100000;
  const ev = [];
  for (let i = 0; i < n; i++) {
    ev.push(`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":${i},"tid":${i},"ts":${10 + i * 10},"dur":3,"args":{"External id":${i + 1}}}`,
      `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":${12 + i * 10},"dur":2,"args":{"device":0,"stream":7,"External id":${i + 1}}}`);
  }
  const f = path.join(fs.mkdtempSync(path.join(TMP, 'threads-')), 't.json');
  fs.writeFileSync(f, `{"traceEvents":[${ev.join(',')}]}`);
  const s = await openPage(`${base}/`);
  try {
    await s.page.selectOption('#command', 'triage');
    await drop(s.page, [f], 300_000);
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(f, 'triage'), '100 k threads');
    const peak = await s.page.evaluate(() => window.__gputriage.peakMemory);
    assert.ok(peak < 768 << 20, `module memory ${peak >> 20} MiB`);
    assert.deepEqual(s.errors, [], 'no page errors');
  } finally {
    await s.close();
  }
});

// Issue 24: ids past 2^53. JSON.parse rounds stream 2^53+1 to 2^53, which
// showed the wrong number and keyed the same lane as stream 2^53; the page
// keeps such ids exact (site/render/json.js) in the lane table, the
// timeline's lanes (from the spans header) and what it says of them.
test('ids past 2^53: streams 2^53 and 2^53+1 stay apart and exact; artifacts equal the CLI\'s', async () => {
  const k = (name, pid, tid, ts, dur, corr) => `{"ph":"X","cat":"kernel","name":"${name}","pid":${pid},"tid":${tid},"ts":${ts},"dur":${dur},"args":{"correlation":${corr}}}`;
  const dir = fs.mkdtempSync(path.join(TMP, 'ids53-'));
  const trace = path.join(dir, 'ids53.json');
  fs.writeFileSync(trace, `{"traceEvents":[${[k('gemm_a', 0, '9007199254740992', 100, 50, '9007199254740995'),
    k('gemm_b', 0, '9007199254740993', 120, 50, '9007199254740997'), k('gemm_c', '"GPU 9007199254740993"', 7, 300, 5, 1)].join(',')}]}`);
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [trace]);
    const text = await s.page.evaluate(() => window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text);
    for (const w of ['"stream": 9007199254740992,', '"stream": 9007199254740993,', '"device": 9007199254740993,']) assert.ok(text.includes(w), `gpu_lanes.json has ${w}`);
    const rows = await s.page.locator('#lanes table.nums tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].slice(0, 3).map((c) => c.textContent).join(' ')));
    assert.deepEqual(rows, ['0 9007199254740992 1', '0 9007199254740993 1', '9007199254740993 7 1'], 'lane numbers exact: device, stream, ops');
    // the timeline's lanes get their kernels from the spans header by (device, stream)
    const canvas = s.page.locator('#lanes canvas.lanes').first();
    await canvas.scrollIntoViewIfNeeded();
    await waitAttr(canvas, 'data-kernels');
    assert.equal(await canvas.getAttribute('data-kernels'), '3', 'every kernel is an interval');
    await canvas.focus();
    const said = [];
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowUp', 'ArrowUp']) {
      await s.page.keyboard.press(key);
      said.push(await s.page.locator('#lanes .kfocus').first().textContent());
    }
    for (const w of ['device 0 stream 9007199254740992', 'device 0 stream 9007199254740993', 'device 9007199254740993 stream 7']) {
      assert.ok(said.some((t) => t.startsWith(w)), `the keyboard says "${w}": ${said.join(' | ')}`);
    }
    await s.page.keyboard.press('0');
    await s.page.keyboard.press(']');
    const one = await s.page.locator('#lanes .kfocus').first().textContent();
    assert.match(one, /gemm_/, `] names a kernel of the chosen lane: ${one}`);
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(trace), 'ids past 2^53');
    assert.deepEqual(s.errors, [], 'no page errors');
  } finally {
    await s.close();
  }
});

// Issue 24: a 1 MB gzip of 1 GiB of spaces. DecompressionStream inflated
// each chunk File.stream() handed it whole (1 GiB at once) and the ratio
// guard saw the compressed count of the whole file, so the page ran for
// minutes; fed in small pieces (jsbridge/inflate.js) it stops at the CLI's
// byte with the CLI's answer, in both gunzip paths.
test('gzip bomb: stops at --max-ratio as the CLI does, same artifacts', async () => {
  const bomb = path.join(TMP, 'bomb.json.gz');
  const gz = zlib.createGzip({ level: 9 });
  const out = fs.createWriteStream(bomb);
  gz.pipe(out);
  const done = new Promise((res, rej) => { out.on('finish', res); out.on('error', rej); });
  gz.write('{"traceEvents":[');
  const spaces = Buffer.alloc(1 << 20, 0x20);
  for (let i = 0; i < 1024; i++) if (!gz.write(spaces)) await new Promise((r) => gz.once('drain', r));
  gz.end();
  await done;
  assert.ok(fs.statSync(bomb).size < 1.1e6, 'a ~1 MB bomb');
  const c0 = Date.now();
  const want = cliArtifacts(bomb);
  const cliSeconds = (Date.now() - c0) / 1000;
  for (const query of ['', '?inflate=1']) {
    const s = await openPage(`${base}/${query}`);
    try {
      const t0 = Date.now();
      await drop(s.page, [bomb]);
      console.log(`     gzip bomb ${query || '(in the analysis worker)'}: ${((Date.now() - t0) / 1000).toFixed(1)} s (CLI ${cliSeconds.toFixed(1)} s)`);
      const status = await s.page.locator('#summary table.files tr.partial').textContent();
      assert.match(status, /bomb\.json\.gz/);
      assert.match(status, /decompressed to \d+ bytes, more than 200× its compressed size \(--max-ratio\)/);
      assertSameArtifacts(await pageArtifacts(s.page), want, `gzip bomb ${query}`);
      const peak = await s.page.evaluate(() => window.__gputriage.peakMemory);
      assert.ok(peak < 512 << 20, `module memory ${peak >> 20} MiB`);
    } finally {
      await s.close();
    }
  }
});

// Issue 24 (gzip-many-small-bombs): 1,024 gzip members of 1 MiB each,
// each alone a bomb. DecompressionStream stops after the first member, the
// job gunzips the rest itself (analyzer/gunzip.go): the ratio guard must
// stop at the CLI's byte and the run_id (a digest of the bytes read) be
// the CLI's, on both gunzip paths.
test('gzip: 1,024 small bomb members stop at the CLI\'s byte with the CLI\'s run_id, both gunzip paths', async () => {
  const f = path.join(TMP, 'members.json.gz');
  const spaces = Buffer.alloc(1 << 20, 0x20);
  const parts = [zlib.gzipSync(Buffer.concat([Buffer.from('{"traceEvents":['), spaces]), { level: 9 })];
  const one = zlib.gzipSync(spaces, { level: 9 });
  for (let i = 1; i < 1024; i++) parts.push(one);
  fs.writeFileSync(f, Buffer.concat(parts));
  const want = cliArtifacts(f);
  assert.match(want['breakdown.json'].toString(), /"partial": true/);
  for (const query of ['', '?inflate=1']) {
    const s = await openPage(`${base}/${query}`);
    try {
      await drop(s.page, [f]);
      const status = await s.page.locator('#summary table.files tr.partial').textContent();
      assert.match(status, /decompressed to 68157440 bytes, more than 200× its compressed size \(--max-ratio\)/);
      assertSameArtifacts(await pageArtifacts(s.page), want, `members ${query}`);
    } finally {
      await s.close();
    }
  }
});

// Issue 24: a gzipped trace followed by 9 MiB of junk names the damage at
// the input's own offset (the member's end plus the 10 header bytes gzip
// read of the junk: internal/gzpos), not at however far a host read ahead
// (the page said 2097152 where the CLI said 4096). Both gunzip paths; the
// Worker's twin is in worker/test.
test('gzip: trailing junk is named at the CLI\'s compressed offset, both gunzip paths', async () => {
  const member = zlib.gzipSync(Buffer.from('{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"stream":7}}]}'));
  const junk = Buffer.alloc(9 << 20);
  for (let i = 0; i < junk.length; i += 3) { junk[i] = 0x1f; junk[i + 1] = 0x8b; }
  const f = path.join(TMP, 'junk_offset.json.gz');
  fs.writeFileSync(f, Buffer.concat([member, junk]));
  const want = cliArtifacts(f);
  const where = `(${member.length + 10} compressed): gzip: invalid header`;
  assert.ok(Object.values(want).some((b) => b.toString().includes(where)), `the CLI names ${where}`);
  for (const query of ['', '?inflate=1']) {
    const s = await openPage(`${base}/${query}`);
    try {
      await drop(s.page, [f]);
      const status = await s.page.locator('#summary table.files tr.partial').textContent();
      assert.ok(status.includes(where), `${query}: the page names ${where}: ${status}`);
      assertSameArtifacts(await pageArtifacts(s.page), want, `junk ${query}`);
    } finally {
      await s.close();
    }
  }
});

// Issue 24: a zip's deflate entry was inflated whole (a 1 MB entry made
// 1 GiB at once); it is bounded as a gzip file is (--max-ratio): past
// 64 MiB, more than 200× its compressed size refuses the zip, naming it.
test('zip bomb: a deflate entry past --max-ratio is refused, naming the entry and the flag', async () => {
  const file = path.join(TMP, 'bomb-run.zip');
  const parts = [];
  const df = zlib.createDeflateRaw({ level: 9 });
  df.on('data', (d) => parts.push(d));
  const ended = new Promise((res) => df.on('end', res));
  const spaces = Buffer.alloc(1 << 20, 0x20);
  let crc = 0;
  for (let i = 0; i < 1024; i++) {
    crc = zlib.crc32(spaces, crc);
    if (!df.write(spaces)) await new Promise((r) => df.once('drain', r));
  }
  df.end();
  await ended;
  const data = Buffer.concat(parts);
  const name = Buffer.from('t.json');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc >>> 0, 14); local.writeUInt32LE(data.length, 18); local.writeUInt32LE(0xffffffff, 22); local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16); central.writeUInt32LE(data.length, 20); central.writeUInt32LE(0xffffffff, 24); central.writeUInt16LE(name.length, 28);
  const cdOff = 30 + name.length + data.length;
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0); eocd.writeUInt16LE(1, 8); eocd.writeUInt16LE(1, 10);
  eocd.writeUInt32LE(46 + name.length, 12); eocd.writeUInt32LE(cdOff, 16);
  fs.writeFileSync(file, Buffer.concat([local, name, data, central, name, eocd]));
  assert.ok(fs.statSync(file).size < 1.1e6, 'a ~1 MB zip');
  const s = await openPage(`${base}/`);
  try {
    const t0 = Date.now();
    await dropAny(s.page, [file], 60_000);
    console.log(`     zip bomb: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    assert.equal(await s.page.evaluate(() => document.body.dataset.state), 'error');
    assert.match(await s.page.textContent('#error'), /zip: t\.json: inflates to more than 200× its compressed size of \d+ bytes \(--max-ratio\): not read/);
  } finally {
    await s.close();
  }
});

test('a truncated .gz is analysed as partial, naming the file', async () => {
  const cut = path.join(TMP, 'cut_trace.json.gz');
  const src = fs.readFileSync(TRACES.mi300);
  fs.writeFileSync(cut, src.subarray(0, src.length >> 1));
  for (const query of ['', '?inflate=1']) { // gunzip in the analysis worker, then in its own
    const s = await openPage(`${base}/${query}`);
    try {
      await drop(s.page, [cut]);
      assert.ok(await s.page.locator('#summary .banner.warn').isVisible(), 'partial-input warning');
      const status = await s.page.locator('#summary table.files tr.partial').textContent();
      assert.match(status, /cut_trace\.json\.gz/);
      assert.match(status, /gzip stream damaged or truncated after \d+ decompressed bytes/);
      const meta = JSON.parse((await download(s.page, '#export a[download="profile_metadata.json"]')).bytes);
      assert.equal(meta.partial, true);
      assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(cut), `truncated gzip ${query}`);
    } finally {
      await s.close();
    }
  }
});

// DecompressionStream stops at the first member and drops chunks when the
// stream fails at its end; the page must still read what the CLI reads.
test('multi-member gzip, bad CRC and trailing junk: every byte, as the CLI', async () => {
  const raw = zlib.gunzipSync(fs.readFileSync(TRACES.mi300));
  const half = raw.length >> 1;
  const whole = zlib.gzipSync(raw);
  const crc = Buffer.from(whole);
  crc[crc.length - 8] ^= 0xff;
  const cases = {
    'multi_member.json.gz': Buffer.concat([zlib.gzipSync(raw.subarray(0, half)), zlib.gzipSync(raw.subarray(half))]),
    'bad_crc.json.gz': crc,
    'junk_after.json.gz': Buffer.concat([whole, Buffer.from('trailing junk\n')]),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    const f = path.join(TMP, name);
    fs.writeFileSync(f, bytes);
    for (const query of ['', '?inflate=1']) { // gunzip in the analysis worker, then in its own
      const s = await openPage(`${base}/${query}`);
      try {
        await drop(s.page, [f]);
        assert.equal(await s.page.evaluate(() => window.__gputriage.stats.inflateWorker), query !== '', `${name} ${query}: the path asked for ran`);
        assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(f), `${name} ${query}`);
      } finally {
        await s.close();
      }
    }
  }
});

// Issue 12: the parser on every core. A big trace's decompressed bytes are
// cut between traceEvents elements into blocks parsed by N parser workers
// (?parsers=N) and merged in file order: the artifacts must not depend on N
// (nor on the block size: ?block=MiB, small here so that mid-size traces
// get many blocks), and equal the CLI's.
const PARALLEL_TRACES = [RANKS[0], `${GPU}/eager_graph_off.trace.json.gz`, `${GPU}/with_stack.trace.json.gz`, TRACES.mi300];
test('parser workers: 1, 2 and 3 give artifacts byte-identical to the CLI (and to each other)', async () => {
  for (const [n, block] of [[1, 0], [2, 2], [3, 1], [2, 0]]) {
    const q = `?parsers=${n}${block ? `&block=${block}` : ''}`;
    const s = await openPage(`${base}/${q}`);
    try {
      const line = [];
      for (const f of PARALLEL_TRACES) {
        await drop(s.page, [f], 300_000);
        const stats = await s.page.evaluate(() => window.__gputriage.stats);
        assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(f), `${path.basename(f)} ${q}`);
        assert.equal(stats.restarted, false, `${q}: no restart`);
        const raw = stats.rawBytes;
        // Blocks only past the head (4 MiB) plus one block.
        const splits = n > 1 && raw > (4 << 20) + (block || 16) * 2 ** 20 + (1 << 20);
        if (splits) assert.ok(stats.blocks >= 1 && stats.parsers === n, `${path.basename(f)} ${q}: ${stats.blocks} blocks, ${stats.parsers} parsers`);
        if (n <= 1) assert.equal(stats.blocks, 0, `${q}: no blocks`);
        line.push(`${path.basename(f)} ${(raw / 1e6).toFixed(0)} MB: ${stats.blocks} blocks, ${stats.seconds.toFixed(2)} s`);
      }
      note(`${q}: identical to the CLI · ${line.join(' · ')}`);
      assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
      assert.deepEqual(s.errors, [], 'no console errors');
    } finally {
      await s.close();
    }
  }
});

test('parser workers: a bare-array document (block_ready 2) and two big rank files in one job', async () => {
  // eager_graph_off's events as a bare array, one per line.
  const doc = JSON.parse(zlib.gunzipSync(fs.readFileSync(PARALLEL_TRACES[1])));
  const dir = fs.mkdtempSync(path.join(TMP, 'bare-'));
  const bare = path.join(dir, 'bare_events.json.gz');
  fs.writeFileSync(bare, zlib.gzipSync(`[\n${doc.traceEvents.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`, { level: 1 }));
  const s = await openPage(`${base}/?parsers=2&block=2`);
  try {
    await drop(s.page, [bare], 300_000);
    let stats = await s.page.evaluate(() => window.__gputriage.stats);
    assert.ok(stats.blocks > 1 && !stats.restarted, `bare array: ${stats.blocks} blocks, restarted ${stats.restarted} (${stats.restartReason})`);
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(bare), 'bare array');
    await drop(s.page, RANKS, 300_000);
    stats = await s.page.evaluate(() => window.__gputriage.stats);
    assert.ok(stats.blocks > 40 && !stats.restarted, `rank files: ${stats.blocks} blocks`);
    // the folder's records planned once, from the gzip trailers, like the CLI
    const isize = (f) => { const b = fs.readFileSync(f); return b.readUInt32LE(b.length - 4); };
    assert.equal(stats.expectBytes, RANKS.reduce((n, f) => n + isize(f), 0), 'expect_bytes: the rank files\' decompressed sizes');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(RANKS, 'breakdown'), 'two rank files in blocks');
    note(`bare array and two rank files in one job: identical to the CLI (${stats.blocks} blocks for the ranks)`);
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('parser workers: a wrong split restarts the job without blocks, same artifacts', async () => {
  const s = await openPage(`${base}/?parsers=2&block=2&badsplit=1`);
  try {
    await drop(s.page, [RANKS[0]], 300_000);
    const stats = await s.page.evaluate(() => window.__gputriage.stats);
    assert.equal(stats.restarted, true, 'the job ran again');
    assert.equal(stats.blocks, 0, 'the second run had no blocks');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(RANKS[0]), 'after the restart');
    note(`wrong split: restarted (${stats.restartReason}); ${stats.seconds.toFixed(2)} s in all, artifacts identical`);
    // Two blocks: the first one's merge fails while the reader still reads
    // the second (the failure is met in pool.onResult, not by a waiting reader).
    const s2 = await openPage(`${base}/?parsers=2&badsplit=1`);
    try {
      await drop(s2.page, [PARALLEL_TRACES[1]], 60_000);
      assert.equal((await s2.page.evaluate(() => window.__gputriage.stats)).restarted, true, 'two blocks: the job ran again');
      assertSameArtifacts(await pageArtifacts(s2.page), cliArtifacts(PARALLEL_TRACES[1]), 'two blocks, wrong split');
    } finally {
      await s2.close();
    }
    // A truncated gzip in block mode restarts too, and ends as the CLI's partial result.
    const cut = path.join(TMP, 'cut_rank0.trace.json.gz');
    const src = fs.readFileSync(RANKS[0]);
    fs.writeFileSync(cut, src.subarray(0, Math.floor(src.length * 0.6)));
    await drop(s.page, [cut], 300_000);
    const st2 = await s.page.evaluate(() => window.__gputriage.stats);
    assert.equal(st2.restarted, true, 'truncated in block mode: the job ran again');
    const got = await pageArtifacts(s.page);
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    // The same as the CLI's, and the page's sequential path's. (For this
    // file DecompressionStream hands over one byte more than the CLI's Go
    // gunzip gets out of it: the page holds each gzip chunk back until the
    // next, and leaves the held one to the module's gunzip on an error.)
    assertSameArtifacts(got, cliArtifacts(cut), 'truncated gzip: block mode restarted vs the CLI');
    const q = await openPage(`${base}/?parsers=1`);
    try {
      await drop(q.page, [cut], 300_000);
      assertSameArtifacts(await pageArtifacts(q.page), cliArtifacts(cut), 'truncated gzip: the sequential path vs the CLI');
    } finally {
      await q.close();
    }
  } finally {
    await s.close();
  }
});

test('parser workers in the file:// build (Blob URL workers)', async () => {
  const url = `${pathToFileURL(INLINE).href}?parsers=2&block=1`;
  const s = await openPage(url);
  try {
    for (const f of [TRACES.h100, `${GPU}/graph_on.trace.json.gz`]) {
      await drop(s.page, [f]);
      const stats = await s.page.evaluate(() => window.__gputriage.stats);
      assert.ok(stats.blocks > 1 && stats.parsers === 2 && !stats.restarted, `${path.basename(f)}: ${stats.blocks} blocks on ${stats.parsers} parsers ${JSON.stringify(stats)} ${s.errors}`);
      assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(f), `file:// ${path.basename(f)}`);
    }
    const net = s.allRequests().filter((u) => !u.startsWith('file:') && !u.startsWith('blob:'));
    assert.deepEqual(net, [], 'no requests besides the page itself');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

let big = null;
async function bigTrace() {
  if (!big) {
    const file = path.join(TMP, 'big.json.gz');
    const t0 = Date.now();
    big = { file, ...(await generateTrace(file, BIG_MB)) };
    note(`generated ${(big.raw / 1e6).toFixed(0)} MB raw / ${(big.gz / 1e6).toFixed(1)} MB gz, ${big.kernels} kernels in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return big;
}

test('cancel stops work; the next drop still works', async () => {
  const { file } = await bigTrace();
  const s = await openPage(`${base}/?parsers=2`);
  try {
    await s.page.setInputFiles('#pick-files', [file]);
    await s.page.waitForFunction(() => (window.__gputriage.progress?.rawBytes ?? 0) > 40e6, null, { timeout: 60_000 });
    // The parser workers (nested, from a Blob URL) must end with the job's worker.
    const parsers = s.page.workers().filter((w) => w.url().startsWith('blob:')).map((w) => {
      const p = { closed: false };
      w.on('close', () => { p.closed = true; });
      return p;
    });
    const t0 = Date.now();
    await s.page.getByRole('button', { name: /Cancel/ }).click();
    await s.page.waitForFunction(() => document.body.dataset.state === 'idle', null, { timeout: 2_000 });
    note(`cancel → idle in ${Date.now() - t0} ms`);
    assert.equal(parsers.length, 2, 'two parser workers ran');
    for (let i = 0; i < 50 && parsers.some((p) => !p.closed); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(parsers.every((p) => p.closed), 'the parser workers ended with the cancel');
    assert.ok(await s.page.locator('#progress').isHidden(), 'progress hidden');
    await drop(s.page, [TRACES.rocmDecode]);
    assert.ok(await s.page.locator('#kernels tbody tr').count() > 0, 'next job ran');
  } finally {
    await s.close();
  }
});

test(`big generated trace (${BIG_MB} MB raw) streams with bounded memory and a responsive page`, async () => {
  const { file, raw } = await bigTrace();
  const s = await openPage(`${base}/`);
  try {
    await s.page.evaluate(() => { window.__resp.armed = true; });
    const t0 = Date.now();
    await drop(s.page, [file], 540_000);
    const wall = (Date.now() - t0) / 1000;
    const { stats, peak, resp, renderMs } = await s.page.evaluate(() => ({ stats: window.__gputriage.stats, peak: window.__gputriage.peakMemory, resp: window.__resp, renderMs: window.__gputriage.renderMs }));
    note(`big trace: report rendered in ${renderMs.toFixed(0)} ms`);
    note(`big trace: ${(raw / 1e6).toFixed(0)} MB raw in ${stats.seconds.toFixed(1)} s = ${stats.mbps.toFixed(0)} MB/s in page (inside feed() ${stats.feedSeconds.toFixed(1)} s, finish() ${stats.finishSeconds.toFixed(2)} s, wall ${wall.toFixed(1)} s)`);
    if (resp.gaps.length) note(`big trace: pauses > 50 ms: ${resp.gaps.join('; ')}`);
    note(`big trace: module memory peak ${(peak / 2 ** 20).toFixed(1)} MiB (${(peak / big.kernels).toFixed(0)} B/kernel); longest main-thread pause while streaming ${resp.maxGap.toFixed(0)} ms, at the report's first paint ${resp.endGap.toFixed(0)} ms (longest long task ${resp.longTask.toFixed(0)} ms)`);
    // For BENCHMARKS.md (make bench copies it in when present).
    fs.mkdirSync(ART_DIR, { recursive: true });
    fs.writeFileSync(path.join(ART_DIR, 'page-bench.md'),
      `| ${(raw / 1e6).toFixed(0)} MB raw generated trace (${(big.gz / 1e6).toFixed(1)} MB gz, ${big.kernels} kernels), dropped on the page | Chromium ${browser.version()} Web Worker | ${(raw / 1e6).toFixed(0)} | ${stats.seconds.toFixed(2)} | ${stats.mbps.toFixed(0)} | ${(peak / 2 ** 20).toFixed(0)} MiB (${(peak / big.kernels).toFixed(0)} B/kernel) | wasm linear memory; longest main-thread pause while streaming ${resp.maxGap.toFixed(0)} ms |\n`);
    assert.equal(stats.rawBytes, raw, 'every byte reached the module');
    // Bounded by what the analyses keep: compact records per kernel (plus a
    // fixed base), never by the bytes streamed through.
    assert.ok(peak < 32 * 2 ** 20 + MEM_PER_KERNEL * big.kernels, `module memory ${(peak / 2 ** 20).toFixed(1)} MiB ≤ 32 MiB + ${MEM_PER_KERNEL} B × ${big.kernels} kernels`);
    if (judgeable(loadFactor())) assert.ok(resp.maxGap < 200 * loadFactor(), `main thread paused ${resp.maxGap.toFixed(0)} ms (bound 200 ms × load factor ${loadFactor().toFixed(1)})`);
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests');
  } finally {
    await s.close();
  }
});

/** CPU seconds (user + system) used so far by this process's descendants
 *  (Chromium and its workers), from /proc; NaN where there is no /proc. */
function browserCPU() {
  try {
    const kids = new Map();
    const cpu = new Map();
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      let st;
      try { st = fs.readFileSync(`/proc/${d}/stat`, 'utf8'); } catch { continue; }
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
      cpu.set(Number(d), Number(f[11]) + Number(f[12]));
    }
    let ticks = 0;
    const walk = (p) => { for (const k of kids.get(p) ?? []) { ticks += cpu.get(k); walk(k); } };
    walk(process.pid);
    return ticks / 100; // USER_HZ
  } catch {
    return NaN;
  }
}

// Issue 12: the parse on every core. The big trace through 1 parser (the
// analysis worker alone), 2 and hardwareConcurrency parser workers
// (?parsers=N), and the gunzip worker (?inflate=1, one parser), alternated
// in the same run; every path must give the same artifacts.
// GPUTRIAGE_BIG_RUNS=n runs each path n times (medians are printed);
// GPUTRIAGE_BASELINE_DIST=dir adds that build's page (its default path) first;
// GPUTRIAGE_BIG_PATHS=a,b,... keeps only the paths whose labels start with one of them.
test('big generated trace: 1, 2 and hardwareConcurrency parser workers (and the gunzip worker), same artifacts', async () => {
  const { file, raw } = await bigTrace();
  const runs = Number(process.env.GPUTRIAGE_BIG_RUNS ?? 1);
  const probe = await openPage(`${base}/`);
  const cores = await probe.page.evaluate(() => navigator.hardwareConcurrency);
  await probe.close();
  // [label, query, inflate worker, parsers]
  let paths = [['1 parser', '?parsers=1&inflate=0', false, 1], ['2 parsers', '?parsers=2&inflate=0', false, 2]];
  if (cores > 2) paths.push([`${cores} parsers (hardwareConcurrency)`, `?parsers=${cores}&inflate=0`, false, cores]);
  else paths[1][0] = `2 parsers (= hardwareConcurrency)`;
  paths.push(['gunzip worker + 1 parser', '?parsers=1&inflate=1', true, 1]);
  if (BASELINE) paths.unshift(['baseline build', 'baseline/', null, null]);
  const keep = (process.env.GPUTRIAGE_BIG_PATHS ?? '').split(',').filter(Boolean);
  if (keep.length) paths = paths.filter(([l]) => keep.some((k) => l.startsWith(k)));
  const secs = new Map(paths.map(([l]) => [l, []]));
  const cpus = new Map(paths.map(([l]) => [l, []]));
  let ref = null;
  for (let i = 0; i < runs; i++) {
    for (const [label, query, pipelined, parsers] of paths) {
      const s = await openPage(`${base}/${query}`);
      try {
        const c0 = browserCPU();
        await drop(s.page, [file], 540_000);
        const cpu = browserCPU() - c0;
        const { stats } = await s.page.evaluate(() => ({ stats: window.__gputriage.stats }));
        if (pipelined != null) assert.equal(stats.inflateWorker, pipelined, `${label}: the path asked for ran`);
        if (parsers != null) assert.equal(stats.parsers ?? 1, parsers, `${label}: ${parsers} parsers ran (${stats.blocks} blocks)`);
        if (parsers != null) assert.ok(!stats.restarted, `${label}: no restart (${stats.restartReason})`);
        assert.equal(stats.rawBytes, raw, `${label}: every byte reached the module`);
        secs.get(label).push(stats.seconds);
        cpus.get(label).push(cpu);
        const par = stats.blocks ? `; ${stats.blocks} blocks, parse ${stats.parseSeconds.toFixed(1)} s in the parsers, merge ${stats.mergeSeconds.toFixed(1)} s, parser memory ${(stats.parserMemory / 2 ** 20).toFixed(0)} MiB` : '';
        note(`${label}: ${(raw / 1e6).toFixed(0)} MB raw in ${stats.seconds.toFixed(1)} s = ${stats.mbps.toFixed(0)} MB/s (feed ${stats.feedSeconds.toFixed(1)} s, finish ${stats.finishSeconds.toFixed(1)} s${par}; Chromium CPU ${cpu.toFixed(1)} s; load average ${os.loadavg()[0].toFixed(1)})`);
        const arts = await pageArtifacts(s.page);
        if (!ref) ref = arts;
        else assertSameArtifacts(arts, ref, `${label} vs ${paths[0][0]}`);
      } finally {
        await s.close();
      }
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const first = med(secs.get(paths[0][0]));
  for (const [l] of paths.slice(1)) {
    const a = med(secs.get(l));
    note(`${l} vs ${paths[0][0]}: ${(raw / 1e6 / first).toFixed(0)} -> ${(raw / 1e6 / a).toFixed(0)} MB/s = ${(first / a).toFixed(2)}x; Chromium CPU ${med(cpus.get(paths[0][0])).toFixed(1)} -> ${med(cpus.get(l)).toFixed(1)} s (median of ${runs}, hardwareConcurrency ${cores}, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores, artifacts identical)`);
  }
  // Issue 12's row for BENCHMARKS.md: every path against the first (the
  // baseline build when GPUTRIAGE_BASELINE_DIST is given), same run.
  const cells = paths.map(([l]) => `${l} ${(raw / 1e6 / med(secs.get(l))).toFixed(0)} MB/s (${med(secs.get(l)).toFixed(1)} s, Chromium CPU ${med(cpus.get(l)).toFixed(1)} s) = **${(first / med(secs.get(l))).toFixed(2)}x**`);
  fs.mkdirSync(ART_DIR, { recursive: true });
  fs.writeFileSync(path.join(ART_DIR, 'page-parallel.md'), `${(raw / 1e6).toFixed(0)} MB raw, ${big.kernels} kernels, medians of ${runs}, hardwareConcurrency ${cores}, load average ${os.loadavg()[0].toFixed(1)}: ${cells.join('; ')}; artifacts identical on every path\n`);
});

// Issue 12: no main-thread task over 100 ms (Long Tasks API) from the drop
// of a large real trace to its rendered report (tp_rank0: H200, 79 MB raw,
// the largest shared trace). Task lengths are wall clock: on a machine with
// more runnable work than cores, a task gets about cores/load of one, so the
// 100 ms bound scales by max(1, load average / cores), measured around the
// run and printed (GPUTRIAGE_LONGTASK_MS overrides the bound).
// The big trace's pause bound is a target judged only under
// GPUTRIAGE_JUDGE_TIMING=1 (`make bench-page`), scaled by load; so is the
// long-task bound below (a timing target is a benchmark, not a test: at 99-102 ms
// on a quiet machine it failed one run in two).
const judgeable = (factor) => {
  if (process.env.GPUTRIAGE_JUDGE_TIMING) return true;
  note(`timing bound not judged (GPUTRIAGE_JUDGE_TIMING=1 judges it); load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores, load factor ${factor.toFixed(1)}`);
  return false;
};
const loadFactor = () => Math.max(1, os.loadavg()[0] / os.cpus().length);

// The bound is judged under GPUTRIAGE_JUDGE_TIMING (`make bench-page`); every
// run prints it and checks the fonts. The page is dropped on RUNS times, each time in a fresh page, and the
// median of the runs' longest tasks must stay under 100 ms × load factor (1
// on a machine running the tests alone): one descheduled frame on a shared
// machine does not fail it, a report whose frames are long does.
const LONGTASK_RUNS = Number(process.env.GPUTRIAGE_LONGTASK_RUNS ?? 3);
test('no long main-thread task from drop to report on a large trace', async () => {
  const load0 = os.loadavg()[0];
  const runs = [];
  let parts = '';
  for (let i = 0; i < LONGTASK_RUNS; i++) {
    const s = await openPage(`${base}/`);
    try {
      // Playwright evaluates its own injected script on first use: a long
      // task of the harness, not of the page.
      await s.page.locator('#pick-files').count();
      await s.page.locator('#drop').isVisible();
      await s.page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
      await s.page.evaluate(() => { window.__resp.armed = true; });
      await drop(s.page, [RANKS[0]], 300_000);
      await s.page.evaluate(() => new Promise((r) => setTimeout(r, 500))); // trailing paint
      const { resp, render, renderMs } = await s.page.evaluate(() => ({ resp: window.__resp, render: window.__gputriage.renderSections, renderMs: window.__gputriage.renderMs }));
      parts = Object.entries(render ?? {}).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
      note(`tp_rank0 (79 MB raw) run ${i + 1}/${LONGTASK_RUNS}: longest long task ${resp.longTask.toFixed(0)} ms; report in ${renderMs.toFixed(0)} ms over several tasks (ms per section: ${parts})`);
      if (resp.gaps.length) note(`tp_rank0: ${resp.gaps.join('; ')}`);
      runs.push(resp.longTask);
      assert.deepEqual(s.errors, [], 'no console errors');
      // The drop's and the report's first layouts were long because each font
      // new at its size and weight cost 5-40 ms (render/fonts.js lays them out
      // in idle time first): every font the page shows must be among them.
      const fonts = await s.page.evaluate(() => {
        const key = (el) => { const c = getComputedStyle(el); return `${c.fontStyle} ${c.fontWeight} ${c.fontSize} ${c.fontFamily}`; };
        const warm = new Set([...document.querySelectorAll('.font-warm span')].map(key));
        const used = new Set();
        for (const el of document.body.querySelectorAll('*')) {
          if (el.closest('.font-warm')) continue;
          if ([...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim()) || /^(INPUT|SELECT|BUTTON)$/.test(el.tagName)) used.add(key(el));
        }
        return { warmed: warm.size, missing: [...used].filter((k) => !warm.has(k)) };
      });
      assert.ok(fonts.warmed > 0, 'the fonts were laid out before the drop');
      assert.deepEqual(fonts.missing, [], 'fonts the report uses that render/fonts.js does not lay out in advance');
    } finally {
      await s.close();
    }
  }
  const sorted = [...runs].sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  // The bound is 100 ms. Only a heavily loaded machine (load average above
  // twice its core count, where the page gets well under one core) scales
  // it, by the load past that point; the note says when it did.
  const load = (load0 + os.loadavg()[0]) / 2;
  const factor = Math.max(1, load / (2 * os.cpus().length));
  const bound = Number(process.env.GPUTRIAGE_LONGTASK_MS ?? 100 * factor);
  note(`tp_rank0: longest task per run ${runs.map((x) => x.toFixed(0)).join(', ')} ms, median ${median.toFixed(0)} ms; load average ${load.toFixed(1)} on ${os.cpus().length} cores: bound ${bound.toFixed(0)} ms${factor > 1 ? ` (100 ms × ${factor.toFixed(1)}: heavily loaded machine)` : ''}`);
  fs.writeFileSync(path.join(ART_DIR, 'page-longtask.md'), `${median.toFixed(0)}\t${(median / factor).toFixed(0)}\t${factor.toFixed(1)}\t${parts}; runs ${runs.map((x) => x.toFixed(0)).join(', ')} ms\n`);
  if (judgeable(factor)) assert.ok(median <= bound, `the median run's longest main-thread task took ${median.toFixed(0)} ms (bound ${bound.toFixed(0)} ms; runs ${runs.map((x) => x.toFixed(0)).join(', ')})`);
});

// ---------------------------------------------------------------- answer first (issue 21)

/** Every trace under the shared testdata (a file the CLI's breakdown writes a
 *  profile_summary.md for), and every crash input named by an answer key. */
function sharedTraces() {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(e.name) && !/answers|key|facts|gen\.json|annot|sidecar|collectives/.test(e.name)) out.push(p);
    }
  };
  for (const d of ['traces', 'traces2', 'gpu/traces', 'gpu/perfmodel']) if (fs.existsSync(`${SHARED}/${d}`)) walk(`${SHARED}/${d}`);
  return out.sort();
}

function crashInputs() {
  const out = [];
  for (const d of ['crash', 'crash-bugreports', 'crash-seedcases']) {
    const key = `${SHARED}/${d}/answers.json`;
    if (!fs.existsSync(key)) { if (process.env.CI) assert.fail(`missing ${key}`); continue; }
    const a = JSON.parse(fs.readFileSync(key, 'utf8'));
    for (const e of a.entries ?? a) {
      const p = `${SHARED}/${d}/${e.file}`;
      if (fs.existsSync(p)) out.push(p); // the 50 MB case is generated, not stored
    }
  }
  return out;
}

// The plain text a reader sees of one Markdown line: code spans and
// emphasis marks dropped, backslash escapes resolved (independent of the
// page's own parser).
const mdPlain = (s) => s.replace(/(`+) ?(.*?) ?\1/g, '$2').replace(/\*\*/g, '').replace(/\\([!-/:-@[-`{-~])/g, '$1');
const norm = (s) => s.replace(/\s+/g, ' ').trim();
const firstSentence = (s) => norm(s).split(/(?<=[.!?])\s(?=[A-Z0-9`(])/)[0];

/** Where a text is on screen: the rect of the first element whose text holds it. */
async function onFirstScreen(page, text) {
  return page.evaluate((want) => {
    const n = (s) => s.replace(/\s+/g, ' ').trim();
    const els = [...document.querySelectorAll('#verdict li, #verdict .headline, #verdict dd, #error')];
    const el = els.find((e) => n(e.textContent).includes(want));
    if (!el) return { found: false, texts: els.slice(0, 4).map((e) => n(e.textContent).slice(0, 160)) };
    // Scroll to the top first: the first screen is what shows without scrolling.
    window.scrollTo(0, 0);
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return { found: true, top: r.top, bottom: r.bottom, h: innerHeight, visible: style.visibility !== 'hidden' && r.height > 0 && !el.closest('details:not([open])') };
  }, text);
}

async function dropAny(page, files, timeout = 120_000) {
  await page.setInputFiles('#pick-files', files);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout });
}

test('answer first: the first takeaway of every shared trace shows on the first screen at 1280x800', async () => {
  const traces = sharedTraces();
  assert.ok(traces.length >= 30, `shared traces found (${traces.length})`);
  const s = await openPage(`${base}/`);
  let checked = 0;
  const misses = [];
  try {
    for (const t of traces) {
      const runs = await s.page.evaluate(() => window.__gputriage.runs);
      await dropAny(s.page, [t]);
      if (await s.page.evaluate(() => document.body.dataset.state) === 'error') continue; // not a trace (a sidecar): no report
      await s.page.waitForFunction((n) => window.__gputriage.runs > n, runs);
      const { summary, stages } = await s.page.evaluate(() => {
        const art = (n) => window.__gputriage.result.artifacts.find((a) => a.name === n)?.text;
        return { summary: art('profile_summary.md') ?? '', stages: (JSON.parse(art('breakdown.json') ?? '{}').stages ?? []).map((x) => x.stage) };
      });
      if (!summary) continue;
      const lines = summary.split('\n');
      const at = lines.indexOf('## Takeaways');
      const first = at < 0 ? null : lines.slice(at + 1).find((l) => l.startsWith('- '));
      if (!first) continue; // no kernels: nothing to take away
      // Grouped under its stage's heading, a takeaway drops its "stage: " prefix.
      let text = first.slice(2);
      const stage = stages.find((x) => text.startsWith(`${x}: `));
      if (stage) text = text.slice(stage.length + 2);
      const sentence = firstSentence(mdPlain(text));
      const where = await onFirstScreen(s.page, sentence);
      checked++;
      if (!where.found || !where.visible || where.top < 0 || where.bottom > where.h) misses.push(`${path.relative(SHARED, t)}: ${JSON.stringify(where)} «${sentence}»`);
      if (t === traces.find((x) => x.includes('sglang_decode'))) await shot(s.page, 'answer-first-decode');
    }
    note(`answer first: ${checked} traces with takeaways; the first takeaway on the first screen in ${checked - misses.length}`);
    assert.ok(checked >= 25, `traces with a takeaway (${checked})`);
    assert.deepEqual(misses, [], 'first takeaway below the fold or hidden');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('answer first: every crash input shows its failure reason on the first screen', async () => {
  const inputs = crashInputs();
  assert.ok(inputs.length >= 80, `crash inputs (${inputs.length})`);
  const s = await openPage(`${base}/`);
  const misses = [];
  let reasons = 0, refused = 0;
  try {
    for (const p of inputs) {
      const runs = await s.page.evaluate(() => window.__gputriage.runs);
      if (fs.statSync(p).isDirectory()) {
        await s.page.setInputFiles('#pick-folder', p);
        await s.page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
      } else await dropAny(s.page, [p]);
      const state = await s.page.evaluate(() => document.body.dataset.state);
      if (state === 'error') {
        // An unusable input (empty, junk): the refusal is the answer, on screen.
        const msg = norm(await s.page.textContent('#error'));
        const where = await onFirstScreen(s.page, msg.slice(0, 60));
        if (!where.found || where.bottom > where.h) misses.push(`${path.basename(p)}: refusal not on screen`);
        refused++;
        continue;
      }
      await s.page.waitForFunction((n) => window.__gputriage.runs > n, runs);
      const d = await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'crash_diagnosis.json')?.text ?? 'null'));
      if (!d) { misses.push(`${path.basename(p)}: no crash_diagnosis.json`); continue; }
      assert.ok(d.failure_reason, `${path.basename(p)}: a failure reason`);
      const where = await onFirstScreen(s.page, norm(d.failure_reason));
      reasons++;
      if (!where.found || !where.visible || where.top < 0 || where.bottom > where.h) misses.push(`${path.basename(p)}: ${JSON.stringify(where)}`);
      // The cards are a diagnosis: no object dumped as text, no field twice.
      const dump = await s.page.locator('#crash, #verdict').evaluateAll((els) => els.some((e) => e.textContent.includes('[object Object]')));
      if (dump) misses.push(`${path.basename(p)}: [object Object] on the page`);
      const twice = await s.page.evaluate(() => [...document.querySelectorAll('#crash article.finding')].flatMap((a) => {
        const dts = [...a.querySelectorAll(':scope > dl.kv dt, :scope > div > dl.kv > dt')].map((d) => d.textContent);
        return dts.filter((x, i) => dts.indexOf(x) !== i);
      }));
      if (twice.length) misses.push(`${path.basename(p)}: fields twice: ${twice.join(', ')}`);
      if (/c15_sglang_tp8|s01_rocr|c04_rocgdb/.test(p)) await shot(s.page, `answer-first-crash-${path.basename(p).split('_')[0]}`);
    }
    note(`answer first: ${reasons} crash inputs with a failure reason on the first screen, ${refused} refused on screen, ${misses.length} misses`);
    for (const m of misses) note(`  miss: ${m}`);
    assert.deepEqual(misses, [], 'crash answers');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('robust drops: a trace + a PNG give the trace\'s report and one error row; title, focus, example', async () => {
  const s = await openPage(`${base}/`);
  try {
    const png = path.join(TMP, 'screenshot.png');
    // A real PNG: the page's own screenshot.
    await s.page.screenshot({ path: png });
    await dropAny(s.page, [TRACES.rocmDecode, png]);
    assert.equal(await s.page.evaluate(() => document.body.dataset.state), 'done', 'the report renders');
    assert.equal(await s.page.evaluate(() => window.__gputriage.result.exit_code), 2, 'exit 2, as the CLI');
    assert.ok(await s.page.locator('#kernels tbody tr').count() > 0, 'the trace\'s kernel table');
    const rows = s.page.locator('#verdict .errrow');
    assert.equal(await rows.count(), 1, 'one error row');
    assert.match(await rows.textContent(), /screenshot\.png.*(binary|unknown)/);
    assert.match(await s.page.title(), /^sglang_Qwen3-8B_decode\.json\.gz \+ 1 more/);
    assert.equal(await s.page.evaluate(() => document.activeElement?.id || document.activeElement?.outerHTML.slice(0, 80)), 'verdict-h', 'focus on the report heading');
    await shot(s.page, 'robust-drop');
    // The artifacts are the CLI's for the trace (the PNG adds none).
    const got = await pageArtifacts(s.page);
    for (const [n, b] of Object.entries(cliArtifacts(TRACES.rocmDecode))) if (n !== 'profile_metadata.json' && n !== 'index.json') assert.ok(got[n]?.equals(b) || withoutRunID(got[n] ?? Buffer.alloc(0)) === withoutRunID(b), `${n} as the CLI's`);
  } finally {
    await s.close();
  }
  // "Try the example": the embedded default trace, no request.
  const e = await openPage(`${base}/`);
  try {
    await e.page.click('#example');
    await e.page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: 120_000 });
    assert.match(await e.page.title(), /^sglang_Qwen3-8B_decode\.json\.gz/);
    const got = await pageArtifacts(e.page);
    assertSameArtifacts(got, cliArtifacts(path.join(ROOT, 'testdata/default/sglang_Qwen3-8B_decode.json.gz')), 'example');
    assert.deepEqual(e.requestsAfterLoad(), [], 'no request for the example');
    assert.deepEqual(e.errors, [], 'no console errors');
  } finally {
    await e.close();
  }
});

/** `gputriage diff` of two inputs as the page names them: each file at
 *  its page name under a temporary folder (A/x and B/x when the names clash). */
function cliDiff(a, b, names, extra = []) {
  const dir = fs.mkdtempSync(path.join(TMP, 'diff-'));
  for (const [src, name] of [[a, names[0]], [b, names[1]]]) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    if (fs.statSync(src).isDirectory()) fs.cpSync(src, path.join(dir, name), { recursive: true });
    else fs.copyFileSync(src, path.join(dir, name));
  }
  const out = fs.mkdtempSync(path.join(TMP, 'cli-'));
  const r = spawnSync(CLI, ['diff', '-q', '-o', out, ...extra, ...names], { cwd: dir, encoding: 'utf8' });
  assert.ok([0, 1, 3, 4].includes(r.status), `gputriage diff exited ${r.status}: ${r.stderr}`);
  return readCliOut(out);
}

// Issue 24: diff.json's kernels are bounded as kernel_table.json's rows
// (limits.KernelRows, analyzer/diff TestKernelsBounded, cmd/gputriage
// TestBoundsDiffKernels): two runs of 2,300 distinct kernels compared on the
// page give the CLI's bytes, truncated, and the page shows the merged rows.
test('compare: 2,300 distinct kernels per run: diff.json bounded to the CLI\'s rows and bytes', async () => {
  const n = 2300;
  const dir = fs.mkdtempSync(path.join(TMP, 'diffbound-'));
  const files = [['a.json', 1], ['b.json', 2]].map(([name, scale]) => {
    const ev = [];
    for (let i = 0; i < n; i++) {
      const k = i % 3 === 0 ? `Cijk_Alik_Bljk_HHS_BH_MT${i}` : `kernel_${i}`;
      ev.push(`{"ph":"X","cat":"kernel","name":"${k}","pid":0,"tid":7,"ts":${10 + i * (2 * n + 2)},"dur":${(1 + i) * scale},"args":{"device":0,"stream":7}}`);
    }
    const f = path.join(dir, name);
    fs.writeFileSync(f, `{"traceEvents":[${ev.join(',')}]}`);
    return f;
  });
  const s = await openPage(`${base}/`);
  try {
    await s.page.selectOption('#command', 'diff');
    await dropAny(s.page, files);
    assert.equal(await s.page.evaluate(() => document.body.dataset.state), 'done', 'a report, not an error');
    const diff = () => s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'diff.json').text));
    let extra = [];
    if ((await diff()).refused) {
      const runs = await s.page.evaluate(() => window.__gputriage.runs);
      await s.page.click('#force');
      await nextRun(s.page, runs);
      extra = ['--force'];
    }
    const d = await diff();
    assert.ok(d.kernels_truncated && d.merged_kernels === n - 1999 && d.kernels.length === 2001,
      `truncated ${d.kernels_truncated}, merged ${d.merged_kernels}, ${d.kernels.length} rows`);
    assertSameArtifacts(await pageArtifacts(s.page), cliDiff(files[0], files[1], ['a.json', 'b.json'], extra), 'bounded diff');
    assert.ok(await s.page.locator('#diff table.diffkernels tbody tr').count() > 0, 'kernel deltas shown');
    const head = await s.page.locator('#diff h4', { hasText: 'largest |Δ|' }).textContent();
    assert.ok(head.includes('top 10 of 2,300;') && head.includes('301 smallest changes summed'), `the heading counts kernels, not rows: ${head}`);
    await shot(s.page, 'compare-bounded');
    assert.deepEqual(s.errors, [], 'no page errors');
  } finally {
    await s.close();
  }
});

test('compare: two runs dropped together give the CLI\'s diff (refused, then --force), side by side; artifact zips too', async () => {
  const s = await openPage(`${base}/`);
  try {
    // The same model on MI300X and H100: two runs in one drop.
    await dropAny(s.page, [TRACES.mi300, TRACES.h100]);
    assert.equal(await s.page.evaluate(() => document.body.dataset.state), 'done', 'a report, not an error');
    const names = ['A/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz', 'B/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz'];
    const mi300First = await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'diff.json').text).a.device_name);
    const [a, b] = /MI300/.test(mi300First) ? [TRACES.mi300, TRACES.h100] : [TRACES.h100, TRACES.mi300];
    let got = await pageArtifacts(s.page);
    assertSameArtifacts(got, cliDiff(a, b, names), 'diff (refused)');
    const where = await onFirstScreen(s.page, 'REFUSED (not comparable)');
    assert.ok(where.found && where.bottom <= where.h, `the verdict on the first screen: ${JSON.stringify(where)}`);
    assert.match(await s.page.title(), /vs/);
    await shot(s.page, 'compare-refused');
    // Compare anyway: the CLI's --force bytes, the deltas on the page.
    const runs = await s.page.evaluate(() => window.__gputriage.runs);
    await s.page.click('#force');
    await nextRun(s.page, runs);
    got = await pageArtifacts(s.page);
    const want = cliDiff(a, b, names, ['--force']);
    assertSameArtifacts(got, want, 'diff --force');
    const d = JSON.parse(want['diff.json'].toString());
    const top = [...d.categories].sort((x, y) => Math.abs(y.delta_us) - Math.abs(x.delta_us))[0];
    const lead = await s.page.locator('#verdict .difflead ol.lead li').first().textContent();
    assert.ok(lead.includes(top.category), `top category delta in the verdict (${lead})`);
    assert.equal(await s.page.locator('#diff .side').count(), 2, 'A and B side by side');
    const sides = await s.page.locator('#diff .side').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
    assert.ok(Math.abs(sides[0] - sides[1]) < 2, 'side by side at 1280 px');
    assert.ok(await s.page.locator('#diff table.diffcats tbody tr').count() === d.categories.length, 'every category delta');
    assert.ok(await s.page.locator('#diff table.diffkernels tbody tr').count() > 0, 'kernel deltas');
    await shot(s.page, 'compare-forced');
    await s.page.setViewportSize({ width: 390, height: 844 });
    await shot(s.page, 'compare-forced-390');
    await s.page.setViewportSize({ width: 1280, height: 800 });

    // Two artifact zips (this page's "All as .zip" of two reports) = two artifact folders to the CLI.
    const zips = [];
    for (const t of [PAIR[0], PAIR[1]]) {
      await dropAny(s.page, [t]); // one trace under auto: its breakdown
      const z = await download(s.page, '#export a[download$=".zip"]');
      const dir = path.join(TMP, `zip-${zips.length}`);
      fs.mkdirSync(dir);
      const file = path.join(dir, z.name);
      fs.writeFileSync(file, z.bytes);
      zips.push(file);
    }
    const before = await s.page.evaluate(() => window.__gputriage.runs);
    await s.page.setInputFiles('#pick-files', zips);
    await nextRun(s.page, before);
    assert.equal(await s.page.evaluate(() => window.__gputriage.stats.command), 'diff', 'the zips compare');
    const stems = zips.map((z) => path.basename(z).replace(/\.zip$/, ''));
    const folders = zips.map((z, i) => {
      const d = path.join(TMP, `unz-${i}`);
      fs.mkdirSync(d, { recursive: true });
      for (const [n, b] of Object.entries(unzip(fs.readFileSync(z)))) if (['profile_metadata.json', 'kernel_table.json', 'breakdown.json', 'gpu_timeline.json'].includes(n)) fs.writeFileSync(path.join(d, n), b);
      return d;
    });
    const zstems = stems[0] === stems[1] ? [`A/${stems[0]}`, `B/${stems[1]}`] : stems;
    assertSameArtifacts(await pageArtifacts(s.page), cliDiff(folders[0], folders[1], zstems), 'diff of two artifact zips');
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

// Kept beside the tests (site/test/screenshots/, committed): each report
// kind's first screen at 1280x800 and 390x844, looked at when they change.
const SHOTS = path.join(ROOT, 'site/test/screenshots');

test('screenshots: every report kind at 1280x800 and 390x844, no sideways page scroll at 390 px', async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const kinds = [
    ['breakdown', [TRACES.rocmDecode]],
    ['triage', PAIR],
    ['ranks', RANKS],
    ['crash', [`${SHARED}/crash-seedcases/c15_sglang_tp8_interleaved_fault_on_one_rank_then_watchdogs.log`]],
    ['compare', [TRACES.mi300, TRACES.h100]],
  ];
  const s = await openPage(`${base}/`);
  const wide = [];
  try {
    for (const [kind, files] of kinds) {
      await s.page.setViewportSize({ width: 1280, height: 800 });
      const runs = await s.page.evaluate(() => window.__gputriage.runs);
      await s.page.setInputFiles('#pick-files', files);
      await nextRun(s.page, runs, 300_000);
      await s.page.evaluate(() => window.scrollTo(0, 0));
      await s.page.screenshot({ path: path.join(SHOTS, `${kind}-1280x800.png`) });
      await s.page.setViewportSize({ width: 390, height: 844 });
      await s.page.evaluate(() => window.scrollTo(0, 0));
      await s.page.screenshot({ path: path.join(SHOTS, `${kind}-390x844.png`) });
      const over = await s.page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      if (over > 0) wide.push(`${kind}: ${over} px wider than the 390 px viewport`);
    }
    note(`screenshots in ${path.relative(ROOT, SHOTS)}/`);
    assert.deepEqual(wide, [], 'no horizontal page scrolling at 390 px');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

// axe-core from npm (a local file, injected through the devtools protocol:
// no network, the page's CSP untouched).
const AXE = path.join(ROOT, 'node_modules/axe-core/axe.min.js');

async function axeSerious(page) {
  await page.evaluate(fs.readFileSync(AXE, 'utf8'));
  const r = await page.evaluate(async () => {
    // content-visibility: auto sections are skipped by layout-based rules until
    // they are near the view: render them all for the audit.
    for (const s of document.querySelectorAll('#report > section')) s.style.contentVisibility = 'visible';
    const out = await window.axe.run(document, { resultTypes: ['violations'] });
    return out.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.length} node(s), e.g. ${v.nodes[0]?.target?.join(' ')} — ${v.help}`);
  });
  return r;
}

test('axe-core: no critical or serious violation on the idle page and on every report page', async () => {
  assert.ok(fs.existsSync(AXE), 'axe-core installed (npm ci)');
  const found = [];
  for (const scheme of ['light', 'dark']) {
    const s = await openPage(`${base}/`, { colorScheme: scheme });
    try {
      for (const v of await axeSerious(s.page)) found.push(`${scheme} idle: ${v}`);
      const kinds = [
        ['breakdown', [TRACES.rocmDecode]],
        ['triage', PAIR],
        ['crash', [CRASH_LOG, `${SHARED}/crash-seedcases/c04_rocgdb_splitk_clean_deadlock_item_bt.txt`]],
        ['compare', [TRACES.mi300, TRACES.h100]],
      ];
      for (const [kind, files] of kinds) {
        const runs = await s.page.evaluate(() => window.__gputriage.runs);
        await s.page.setInputFiles('#pick-files', files);
        await nextRun(s.page, runs, 300_000);
        for (const v of await axeSerious(s.page)) found.push(`${scheme} ${kind}: ${v}`);
      }
    } finally {
      await s.close();
    }
  }
  for (const f of found) note(`axe: ${f}`);
  assert.deepEqual(found, [], 'axe-core critical/serious violations');
});

test('readable names: the xDiT top 25 kernels read apart; Enter expands a name, copy beside it', async () => {
  const xdit = `${SHARED}/traces/tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz`;
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [xdit]);
    const cells = s.page.locator('#kernels tbody td.kname');
    const shown = await cells.evaluateAll((tds) => tds.map((td) => (td.querySelector('button.kn') ?? td).textContent));
    const full = await cells.evaluateAll((tds) => tds.map((td) => td.title));
    assert.equal(shown.length, 25);
    assert.equal(new Set(shown).size, new Set(full).size, `every distinct kernel reads apart: ${shown.join(' | ')}`);
    // Keyboard: Tab to the first long name, Enter shows it whole.
    const btn = s.page.locator('#kernels tbody button.kn').first();
    await btn.focus();
    await s.page.keyboard.press('Enter');
    assert.equal(await btn.getAttribute('aria-expanded'), 'true');
    assert.equal(await btn.textContent(), await btn.getAttribute('title'), 'the whole name');
    assert.ok(await s.page.locator('#kernels tbody button.copy:visible').count() === 1, 'a copy button beside it');
    await s.page.locator('#kernels').evaluate((e) => e.scrollIntoView());
    await shot(s.page, 'names-xdit');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('timeline: wheel zoom narrows the stream lanes\' time range; drag pans, + zooms, 0 resets', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [TRACES.rocmDecode]);
    const canvas = s.page.locator('#lanes canvas.lanes').first();
    await canvas.scrollIntoViewIfNeeded();
    const span = JSON.parse((await s.page.evaluate(() => window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text))).files[0].span_us;
    const range = async () => { const v = await canvas.getAttribute('data-view'); if (!v) return [0, span]; const [a, b] = v.split('-').map(Number); return [a, b]; };
    // mouse.wheel returns before the page has handled the events, and the
    // report may still be laying out below the lanes (the canvas moves after
    // its box was read): wait until the drawn view is narrower, and aim again
    // from a fresh box if the wheel landed elsewhere (both flaked in CI)
    let box, a1, b1;
    for (let attempt = 0; attempt < 3; attempt++) {
      await canvas.scrollIntoViewIfNeeded();
      box = await canvas.boundingBox();
      await s.page.mouse.move(box.x + box.width * 0.7, box.y + 30);
      for (let i = 0; i < 5; i++) await s.page.mouse.wheel(0, -120);
      await canvas.evaluate((el, span) => new Promise((r) => { const t0 = performance.now(); (function poll() { const v = el.getAttribute('data-view'); const w = v ? v.split('-').map(Number).reduce((a, b) => b - a) : span; if (w < span * 0.5 || performance.now() - t0 > 5000) r(); else requestAnimationFrame(poll); })(); }), span);
      [a1, b1] = await range();
      if (b1 - a1 < span * 0.5) break;
      note(`wheel zoom attempt ${attempt + 1} left the view at ${a1}-${b1}; aiming again`);
    }
    assert.ok(b1 - a1 < span * 0.5, `wheel zoom narrows the range: ${a1}-${b1} of ${span} us`);
    assert.ok(a1 > 0, 'zoomed around the pointer (70 % across), not the start');
    await s.page.mouse.down();
    await s.page.mouse.move(box.x + box.width * 0.5, box.y + 30, { steps: 4 });
    await s.page.mouse.up();
    const [a2, b2] = await range();
    assert.ok(a2 > a1 && Math.abs((b2 - a2) - (b1 - a1)) < 1e-3 * span, `drag pans: ${a2}-${b2}`);
    await canvas.focus();
    await s.page.keyboard.press('+');
    const [a3, b3] = await range();
    assert.ok(b3 - a3 < b2 - a2, 'the keyboard zooms');
    await shot(s.page, 'lanes-zoomed');
    await s.page.keyboard.press('0');
    const [a4, b4] = await range();
    assert.ok(a4 === 0 && Math.abs(b4 - span) < 1e-3 * span, '0 resets');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

// ---- issue 21: the zoomable timeline, step selector, reflow and print (one block)

/** Wait until el's attribute name satisfies ok (polls per frame, 15 s). */
async function waitAttr(el, name, ok = (v) => v != null) {
  await el.evaluate((e, [n, src]) => new Promise((r, j) => {
    const f = new Function('v', `return (${src})(v)`);
    const t0 = performance.now();
    (function poll() { if (f(e.getAttribute(n))) r(); else if (performance.now() - t0 > 15000) j(new Error(`${n}: ${e.getAttribute(n)}`)); else requestAnimationFrame(poll); })();
  }), [name, ok.toString()]);
}

test('zoomable timeline: deep wheel zoom shows single kernels, hover and [ ] name them', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [TRACES.rocmDecode]);
    const canvas = s.page.locator('#lanes canvas.lanes').first();
    await canvas.scrollIntoViewIfNeeded();
    await waitAttr(canvas, 'data-kernels');
    const kt = await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'kernel_table.json').text));
    const names = new Set(kt.rows.map((k) => k.kernel));
    const total = Number(await canvas.getAttribute('data-kernels'));
    const ops = await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text).files[0].lanes.reduce((n, l) => n + l.ops, 0));
    assert.equal(total, ops, 'every op of gpu_lanes.json is a kernel interval');
    const box = await canvas.boundingBox();
    const span = () => canvas.getAttribute('data-view').then((v) => { const [a, b] = v.split('-').map(Number); return b - a; });
    // Zoom around the middle of the busy end of the trace (the decode
    // trace's kernels sit in its last few pixels at full view).
    await s.page.mouse.move(box.x + box.width - 12, box.y + 26);
    // Five notches at a time until single kernels show (the coarsest such view).
    for (let i = 0; i < 16 && (await canvas.getAttribute('data-mode')) !== 'kernels'; i++) {
      for (let k = 0; k < 5; k++) await s.page.mouse.wheel(0, -120);
      await waitAttr(canvas, 'data-view', (v) => v != null);
      await s.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    await waitAttr(canvas, 'data-mode', (v) => v === 'kernels');
    const shown = Number(await canvas.getAttribute('data-shown'));
    assert.ok(shown > 0 && shown < total, `single kernels drawn at deep zoom: ${shown} of ${total}`);
    const w = await span();
    assert.ok(w < 0.01 * (await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text).files[0].span_us)),
      `the view narrowed to ${w} us`);
    await shot(s.page, 'lanes-kernels');
    // Hover: some x along the first lane names a kernel in full.
    let tipText = null, lastTip = null;
    for (let i = 0; !tipText && i < 2 * 180; i++) {
      const x = box.x + 200 + (i % 180) * ((box.width - 210) / 180), y = box.y + 26 + 16 * Math.floor(i / 180); // the first two lanes
      await s.page.mouse.move(x, y);
      const t = await s.page.locator('#lanes .tip').first().textContent();
      lastTip = t;
      // the trace's own spelling (demangled, with arguments) holds the table's name
      if (t && [...names].some((n) => t.split(' · ')[0].includes(n))) tipText = t;
    }
    assert.ok(tipText, `hovering a kernel shows its full name (last tip: ${lastTip})`);
    assert.match(tipText, / · [\d.]+ (ns|µs|us|ms) at /, 'and its duration');
    await shot(s.page, 'lanes-kernels-hover');
    // Keyboard: ] steps to a kernel and says it whole.
    await canvas.focus();
    await s.page.keyboard.press('0');
    await s.page.keyboard.press(']');
    const said = await s.page.locator('#lanes .kfocus').first().textContent();
    assert.ok([...names].some((n) => said.split(' · ')[0].includes(n)), `] names the first kernel in full: ${said}`);
    await s.page.keyboard.press(']');
    const said2 = await s.page.locator('#lanes .kfocus').first().textContent();
    assert.notEqual(said2, '', 'the next one');
    assert.equal(await canvas.getAttribute('data-mode'), 'kernels', '] zooms to where the kernel can be seen');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('step selector: a step zooms the timeline, the fragment keeps it, a reload with the same trace restores it', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [PAIR[1]]); // H100 graph-on: 32 decode steps
    const canvas = s.page.locator('#lanes canvas.lanes').first();
    await waitAttr(canvas, 'data-kernels');
    const stage = s.page.locator('#lanes select.stagesel').first(), step = s.page.locator('#lanes select.stepsel').first();
    await stage.selectOption('decode');
    assert.equal(await step.locator('option').count(), 33, 'every step of the stage (steps.json: 32), and "all"');
    await step.selectOption('3');
    const hash = await s.page.evaluate(() => location.hash);
    assert.match(hash, /stage=decode/);
    assert.match(hash, /step=3/);
    const view = (await canvas.getAttribute('data-view')).split('-').map(Number);
    const span = await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'gpu_lanes.json').text).files[0].span_us);
    const wall = await s.page.evaluate(() => JSON.parse(window.__gputriage.result.artifacts.find((a) => a.name === 'steps.json').text).stages.find((x) => x.stage === 'decode').wall_us);
    const w = view[1] - view[0];
    assert.ok(w >= wall.min * 0.99 && w <= wall.max * 1.05, `the view is one step wide: ${w} us (steps.json wall ${wall.min}-${wall.max} us)`);
    assert.ok(w < span / 10, 'narrower than the trace');
    assert.match(await s.page.locator('#lanes .stepnote').first().textContent(), /step 3 of 32 \(decode\)/);
    await canvas.scrollIntoViewIfNeeded();
    await shot(s.page, 'lanes-step');
    // A shared link: a fresh page at this address, the same trace dropped.
    const s2 = await openPage(`${base}/${hash}`);
    try {
      await drop(s2.page, [PAIR[1]]);
      const c2 = s2.page.locator('#lanes canvas.lanes').first();
      await waitAttr(c2, 'data-step', (v) => v === 'decode:3');
      assert.equal(await s2.page.locator('#lanes select.stepsel').first().inputValue(), '3', 'the step selector shows step 3');
      assert.equal(await c2.getAttribute('data-view'), view.map((x) => x.toFixed(3)).join('-'), 'the same view');
      assert.deepEqual(s2.errors, [], 'no console errors (restored page)');
    } finally {
      await s2.close();
    }
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('reflow and print: no sideways scroll at 800 and 640 px (200 % zoom), print hides the controls, tables cue hidden rows', async () => {
  const s = await openPage(`${base}/`);
  try {
    await drop(s.page, [PAIR[1]]);
    await waitAttr(s.page.locator('#lanes canvas.lanes').first(), 'data-kernels');
    // The kernel table's box holds more rows than it shows: the cue says so,
    // and goes once scrolled to the end.
    await s.page.locator('#kernels select[aria-label="rows shown"]').selectOption('0');
    const wrap = s.page.locator('#kernels .tablewrap').first();
    const cue = wrap.locator('.morecue');
    await wrap.scrollIntoViewIfNeeded(); // the cue is worked out on screen only
    await s.page.waitForFunction(() => !document.querySelector('#kernels .morecue')?.hidden, null, { timeout: 5000 });
    assert.match(await cue.textContent(), /more rows? below/);
    await wrap.evaluate((e) => { e.scrollTop = e.scrollHeight; });
    await s.page.waitForFunction(() => document.querySelector('#kernels .morecue')?.hidden, null, { timeout: 5000 });
    for (const width of [800, 640]) {
      await s.page.setViewportSize({ width, height: 800 });
      await s.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const o = await s.page.evaluate(() => {
        const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && e.checkVisibility())
          .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 6);
        return { sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth, wide, header: document.querySelector('header.top').getBoundingClientRect().height };
      });
      assert.ok(o.sw <= o.cw, `no sideways page scroll at ${width} px: scrollWidth ${o.sw} > ${o.cw} (${o.wide.join(', ')})`);
      await shot(s.page, `reflow-${width}`);
    }
    await s.page.setViewportSize({ width: 1280, height: 800 });
    await s.page.emulateMedia({ media: 'print' });
    const print = await s.page.evaluate(() => {
      const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.checkVisibility()).length;
      return {
        controls: shown('header .controls, #drop, nav.toc, .toolbar, #report button:not(.kn):not(th button), #report select'),
        heads: shown('#kernels thead th button'), // column headings are sort buttons: they print
        names: shown('#kernels button.kn'), // kernel names are buttons (expand on click): they print
        sections: shown('#report section.card'),
        boxes: [...document.querySelectorAll('#report .tablewrap')].filter((e) => getComputedStyle(e).maxHeight !== 'none').length,
        lanes: shown('#lanes canvas'),
      };
    });
    assert.equal(print.controls, 0, 'print hides the controls (header, drop zone, section nav, toolbars, buttons, selects)');
    assert.ok(print.sections >= 5 && print.lanes > 0, `the report prints (${print.sections} sections, the timeline canvas)`);
    assert.equal(print.boxes, 0, 'no table prints inside a scroll box');
    assert.ok(print.names > 0 && print.heads > 3, 'kernel names and the column headings print');
    await s.page.evaluate(() => window.scrollTo(0, document.querySelector('#kernels').offsetTop));
    await shot(s.page, 'print-emulated');
    await s.page.pdf?.({ path: path.join(ART_DIR, 'report-print.pdf') }).catch(() => {});
    await s.page.emulateMedia({ media: 'screen' });
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

// A kernels-only Kineto trace of n kernels on 4 streams (gzip level 1):
// what the timeline bench zooms through.
async function generateKernels(file, n) {
  const names = ['Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_ISA942', 'paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, 128>',
    'aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, 256, 16>', 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
    'void at::native::elementwise_kernel<128, 4>', 'rotary_embedding_kernel<c10::BFloat16, true>', 'act_and_mul_kernel<__hip_bfloat16>', 'store_kvcache<2048l, 4>'];
  const gz = zlib.createGzip({ level: 1 });
  const out = fs.createWriteStream(file);
  gz.pipe(out);
  const done = new Promise((res, rej) => { out.on('finish', res); out.on('error', rej); gz.on('error', rej); });
  const write = (s) => (gz.write(s) ? null : new Promise((r) => gz.once('drain', r)));
  await write('{"deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}], "traceEvents": [\n');
  const ts = [1e6, 1e6, 1e6, 1e6];
  for (let i = 0; i < n;) {
    let chunk = '';
    for (let k = 0; k < 1000 && i < n; k++, i++) {
      const j = (i * 2654435761) >>> 0, st = i % 4 === 3 ? 3 : i % 3, d = 2 + (j % 40);
      ts[st] += d + (j % 17 === 0 ? 200 : 1 + (j % 5));
      chunk += `${i ? ',' : ''}{"ph":"X","cat":"kernel","name":${JSON.stringify(names[(j >>> 3) % names.length])},"pid":0,"tid":${st},"ts":${ts[st].toFixed(3)},"dur":${d},"args":{"device":0,"stream":${st}}}\n`;
    }
    await write(chunk);
  }
  await write(']}\n');
  gz.end();
  await done;
  return fs.statSync(file).size;
}

test('timeline bench: zooming a 1 M-kernel trace keeps every main-thread task ≤ 100 ms', async () => {
  const N = Number(process.env.GPUTRIAGE_ZOOM_KERNELS ?? 1_000_000);
  const file = path.join(os.tmpdir(), `gputriage-zoom-${N}.json.gz`);
  const gzBytes = await generateKernels(file, N);
  const load0 = os.loadavg()[0];
  const s = await openPage(`${base}/`);
  try {
    await s.page.locator('#pick-files').count(); // playwright's injected script: not the page's task
    await s.page.evaluate(() => { window.__resp.armed = true; });
    await drop(s.page, [file], 600_000);
    const canvas = s.page.locator('#lanes canvas.lanes').first();
    await waitAttr(canvas, 'data-kernels');
    const report = await s.page.evaluate(() => ({ longTask: window.__resp.longTask, gaps: window.__resp.gaps.filter((g) => g.startsWith('longtask')), stats: window.__gputriage.stats,
      resultAt: window.__gputriage.resultAt, doneAt: window.__gputriage.doneAt, spansAt: window.__gputriage.spansAt }));
    assert.equal(Number(await canvas.getAttribute('data-kernels')), N, 'every kernel reached the timeline');
    await canvas.scrollIntoViewIfNeeded();
    await s.page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    await s.page.evaluate(() => { window.__resp.longTask = 0; window.__resp.gaps = []; });
    const box = await canvas.boundingBox();
    const frame = () => s.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const draws = [];
    const drawn = async () => { await frame(); draws.push({ ms: Number(await canvas.getAttribute('data-draw-ms')), mode: await canvas.getAttribute('data-mode'), shown: Number(await canvas.getAttribute('data-shown')) }); };
    const t0 = Date.now();
    await drawn(); // the full view: every kernel in it
    await s.page.mouse.move(box.x + box.width * 0.55, box.y + 30);
    for (let i = 0; i < 24; i++) { for (let k = 0; k < 4; k++) await s.page.mouse.wheel(0, -120); await drawn(); } // in, 96 notches
    for (let i = 0; i < 8; i++) { await s.page.mouse.wheel(120, 0); await drawn(); } // pan
    await s.page.mouse.down();
    await s.page.mouse.move(box.x + box.width * 0.3, box.y + 30, { steps: 8 });
    await s.page.mouse.up();
    await drawn();
    await canvas.focus();
    for (let i = 0; i < 5; i++) { await s.page.keyboard.press(']'); await drawn(); }
    for (let i = 0; i < 24; i++) { for (let k = 0; k < 4; k++) await s.page.mouse.wheel(0, 120); await drawn(); } // out
    await s.page.keyboard.press('0');
    await drawn();
    await s.page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    const zoom = await s.page.evaluate(() => ({ longTask: window.__resp.longTask, gaps: window.__resp.gaps.slice() }));
    const secs = (Date.now() - t0) / 1000;
    const load = (load0 + os.loadavg()[0]) / 2;
    const factor = Math.max(1, load / (2 * os.cpus().length));
    const bound = 100 * factor;
    const maxDraw = Math.max(...draws.map((d) => d.ms));
    const modes = [...new Set(draws.map((d) => d.mode))].join('/');
    const line = `${N} kernels (${(gzBytes / 1e6).toFixed(1)} MB gz), analysed in ${report.stats.seconds.toFixed(1)} s; ` +
      `zooming (${draws.length} views, ${modes}, ${secs.toFixed(0)} s): longest main-thread task ${zoom.longTask.toFixed(0)} ms, longest draw ${maxDraw.toFixed(1)} ms (full view ${draws[0].ms.toFixed(1)} ms); ` +
      `drop → timeline ready: longest task ${report.longTask.toFixed(0)} ms; load average ${load.toFixed(1)} on ${os.cpus().length} cores (bound ${bound.toFixed(0)} ms)`;
    note(line);
    if (zoom.gaps.length) note(`zoom: ${zoom.gaps.join('; ')}`);
    note(`drop → ready: result at ${(report.resultAt / 1000).toFixed(2)} s, report done at ${(report.doneAt / 1000).toFixed(2)} s, kernels on the timeline at ${(report.spansAt / 1000).toFixed(2)} s; ${report.gaps.join('; ')}`);
    fs.writeFileSync(path.join(ART_DIR, 'page-zoom.md'), `${line}\n`);
    assert.ok(draws.some((d) => d.mode === 'kernels' && d.shown > 0), 'deep zoom drew single kernels');
    assert.deepEqual(s.errors, [], 'no console errors');
    if (judgeable(factor)) assert.ok(zoom.longTask <= bound, `longest main-thread task while zooming ${zoom.longTask.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`);
  } finally {
    await s.close();
    fs.rmSync(file, { force: true });
  }
});

// ---------------------------------------------------------------- ROCm profiler databases and folders (issue 20)

const ROCPROF = `${SHARED}/rocprof`;
const DATABASES = ['908_results.rocpd.db.gz', 'mytrace.rpd.gz', 'matmul_result.rpd.gz', 'rocprof_compute_23ed6f36.db.gz'];

/** Drop files (or a folder) on a page that may already show a report, and
 *  wait for the report of this drop (state 'done' alone may be the last one's). */
async function dropNew(page, input, files) {
  await page.evaluate(() => {
    window.__dropWorked = false;
    window.__dropObserver?.disconnect();
    window.__dropObserver = new MutationObserver(() => { if (document.body.dataset.state === 'working') window.__dropWorked = true; });
    window.__dropObserver.observe(document.body, { attributes: true, attributeFilter: ['data-state'] });
  });
  await page.setInputFiles(input, files);
  await page.waitForFunction(() => window.__dropWorked && ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
}

/** The CLI's artifacts and its wall time for files of one folder, as cliArtifacts. */
function timedCli(files, cmd = 'breakdown', extra = []) {
  const t = process.hrtime.bigint();
  const out = cliArtifacts(files, cmd, extra);
  return { out, ms: Number(process.hrtime.bigint() - t) / 1e6 };
}

test('rocprof: a rocpd .db, .rpd files (gzipped and raw) and a rocprof-compute DB give the CLI\'s bytes', async () => {
  const raw = path.join(TMP, 'matmul_result.rpd'); // an uncompressed database too
  fs.writeFileSync(raw, zlib.gunzipSync(fs.readFileSync(`${ROCPROF}/matmul_result.rpd.gz`)));
  const s = await openPage(`${base}/`);
  try {
    for (const f of [...DATABASES.map((n) => `${ROCPROF}/${n}`), raw]) {
      const label = path.basename(f);
      await dropNew(s.page, '#pick-files', [f]);
      if (await s.page.evaluate(() => document.body.dataset.state) === 'error') assert.fail(`${label}: page error: ${await s.page.textContent('#error')}`);
      const got = await pageArtifacts(s.page);
      const cli = timedCli(f);
      assertSameArtifacts(got, cli.out, label);
      const stats = await s.page.evaluate(() => window.__gputriage.stats);
      const meta = JSON.parse(got['profile_metadata.json'].toString());
      assert.ok(['rocpd', 'RPD', 'rocprof-compute'].includes(meta.files[0].source?.format), `${label}: read as a database (${meta.files[0].source?.format})`);
      assert.ok(await s.page.locator('#kernels tbody tr').count() > 0, `${label}: kernel rows`);
      note(`${label}: ${Object.keys(got).length} artifacts identical · page ${stats.seconds.toFixed(2)} s (SQLite ${stats.sqlSeconds.toFixed(2)} s, module ${stats.feedSeconds.toFixed(2)} + ${stats.finishSeconds.toFixed(2)} s; row stream ${(stats.rawBytes / 1e6).toFixed(1)} MB) · CLI ${(cli.ms / 1000).toFixed(2)} s wall`);
    }
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('rocprof: a rocprofv3 output folder (CSV + rocpd .db) dropped whole gives the CLI\'s bytes', async () => {
  // <run>/<host>/<pid>_*: the 7.x CSV tables of the 908 run, and the same
  // run as rocpd in a second host folder (two processes = two trace files).
  const run = path.join(TMP, 'rocprof-run');
  fs.mkdirSync(path.join(run, 'node7'), { recursive: true });
  fs.mkdirSync(path.join(run, 'node8'), { recursive: true });
  for (const n of ['908_agent_info.csv', '908_hip_api_trace.csv', '908_kernel_trace.csv.gz', '908_memory_copy_trace.csv']) fs.copyFileSync(`${ROCPROF}/${n}`, path.join(run, 'node7', n));
  fs.copyFileSync(`${ROCPROF}/908_results.rocpd.db.gz`, path.join(run, 'node8', '908_results.db.gz'));
  const s = await openPage(`${base}/`);
  try {
    for (const [label, dir, want] of [['csv folder', path.join(run, 'node7'), 'node7/908_*.csv'], ['run folder', run, null]]) {
      await dropNew(s.page, '#pick-folder', dir);
      if (await s.page.evaluate(() => document.body.dataset.state) === 'error') assert.fail(`${label}: page error: ${await s.page.textContent('#error')}`);
      const got = await pageArtifacts(s.page);
      const out = fs.mkdtempSync(path.join(TMP, 'cli-'));
      const t = process.hrtime.bigint();
      const r = spawnSync(CLI, ['breakdown', '-q', '-o', out, path.basename(dir)], { cwd: path.dirname(dir), encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      assert.ok(r.status === 0 || r.status === 1, `gputriage breakdown exited ${r.status}: ${r.stderr}`);
      assertSameArtifacts(got, readCliOut(out), label);
      const meta = JSON.parse(got['profile_metadata.json'].toString());
      const names = meta.source_trace_paths;
      if (want) assert.deepEqual(names, [want], `${label}: one rocprofv3 run`);
      else assert.equal(names.length, 2, `${label}: the CSV run and the database are two processes (${JSON.stringify(names)})`);
      const stats = await s.page.evaluate(() => window.__gputriage.stats);
      note(`${label}: ${Object.keys(got).length} artifacts identical · page ${stats.seconds.toFixed(2)} s · CLI ${(ms / 1000).toFixed(2)} s wall`);
    }
    assert.deepEqual(s.requestsAfterLoad(), [], 'no network requests after load');
    assert.deepEqual(s.errors, [], 'no console errors');
  } finally {
    await s.close();
  }
});

test('rocprof: a database in the file:// build; a damaged database is refused as the CLI refuses it', async () => {
  // The first 64 KiB of the rocpd database: the header and schema pages
  // without the rest (SQLite: "database disk image is malformed").
  const cut = path.join(TMP, 'cut_results.db');
  fs.writeFileSync(cut, zlib.gunzipSync(fs.readFileSync(`${ROCPROF}/908_results.rocpd.db.gz`)).subarray(0, 64 << 10));
  const s = await openPage(pathToFileURL(INLINE).href);
  try {
    const f = `${ROCPROF}/mytrace.rpd.gz`;
    await drop(s.page, [f]);
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(f), 'file:// mytrace.rpd.gz');
    for (const [label, files] of [['cut database', [cut]], ['cut database + an RPD', [cut, `${ROCPROF}/matmul_result.rpd.gz`]]]) {
      const dir = fs.mkdtempSync(path.join(TMP, 'dbs-'));
      for (const x of files) fs.copyFileSync(x, path.join(dir, path.basename(x)));
      const local = files.map((x) => path.join(dir, path.basename(x)));
      await dropNew(s.page, '#pick-files', local);
      const out = fs.mkdtempSync(path.join(TMP, 'cli-'));
      const r = spawnSync(CLI, ['breakdown', '-q', '-o', out, ...local.map((x) => path.basename(x))], { cwd: dir, encoding: 'utf8' });
      const state = await s.page.evaluate(() => document.body.dataset.state);
      assert.equal(r.status, 2, `${label}: the CLI's exit code`);
      assert.match(r.stderr, /cut_results\.db: not a readable SQLite database: sqlite3: database disk image is malformed/, `${label}: the CLI's words`);
      if (files.length === 1) {
        assert.equal(state, 'error', `${label}: nothing readable: the page refuses it`);
        assert.match(await s.page.textContent('#error'), /cut_results\.db: not a readable SQLite database: sqlite3: database disk image is malformed/, `${label}: the page's words are the CLI's`);
      } else {
        assert.equal(state, 'done', `${label}: the RPD's report`);
        assert.equal(await s.page.evaluate(() => window.__gputriage.result.exit_code), 2, `${label}: exit 2, as the CLI`);
        assert.match(await s.page.locator('#verdict .errrow').textContent(), /cut_results\.db.*malformed/, `${label}: one error row naming the file`);
        assertSameArtifacts(await pageArtifacts(s.page), readCliOut(out), label);
      }
      note(`${label}: CLI exit ${r.status}, page ${state}`);
    }
    assert.deepEqual(s.allRequests().filter((u) => !u.startsWith('file:')), [], 'no network at all');
  } finally {
    await s.close();
  }
});

test('hostile: a database whose view never ends is stopped by SQLite\'s work budget, as the CLI stops it; a WAL-mode header is read as the CLI reads it', async () => {
  // testdata/hostile/endless_view.db: its kernels view is an endless
  // recursive CTE yielding no row (issue 24, tools/hostile sweep 7): the
  // page ran it for ever; now limits.SQLiteSteps stops it in the CLI's words.
  const f = path.join(ROOT, 'testdata', 'hostile', 'endless_view.db');
  const s = await openPage(pathToFileURL(INLINE).href);
  try {
    await drop(s.page, [f]);
    const r = spawnSync(CLI, ['breakdown', '-q', '-o', fs.mkdtempSync(path.join(TMP, 'cli-')), path.basename(f)], { cwd: path.dirname(f), encoding: 'utf8' });
    assert.equal(r.status, 1, `the CLI's exit: ${r.stderr}`);
    assert.match(r.stderr, /query rocpd\.kernels: SQLite stopped after \d+ thousand steps \(limits\.SQLiteSteps/, 'the CLI names the bound');
    const res = await s.page.evaluate(() => window.__gputriage.result);
    assert.equal(res.exit_code, 1, 'exit 1, as the CLI');
    assert.match(JSON.stringify(res), /query rocpd\.kernels: SQLite stopped after \d+ thousand steps \(limits\.SQLiteSteps/, 'the page names the bound in the CLI\'s words');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(f), 'endless_view.db');
    // a database whose header says WAL mode (no -wal beside it): the CLI
    // reads it; SQLite cannot deserialize it as such, so the page reads it
    // in rollback mode, the same rows
    const wal = path.join(ROOT, 'testdata', 'hostile', 'wal_mode.db');
    await dropNew(s.page, '#pick-files', [wal]);
    assert.equal(await s.page.evaluate(() => window.__gputriage.result.exit_code), 0, 'wal_mode.db: exit 0, as the CLI');
    assertSameArtifacts(await pageArtifacts(s.page), cliArtifacts(wal), 'wal_mode.db');
  } finally {
    await s.close();
  }
});

// ---------------------------------------------------------------- main

let server;
let passed = 0, failed = 0;
const t0 = Date.now();
try {
  for (const p of [CHROMIUM, CLI, path.join(DIST, 'index.html'), INLINE]) {
    if (!fs.existsSync(p)) throw new Error(`missing ${p} (run \`make site\`; Chromium: apt-get install -y chromium)`);
  }
  server = await startServer();
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // No --allow-file-access-from-files: a boolean switch is ON whatever value
    // follows it, and the file:// test must prove the inline build needs none.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  for (const t of tests) {
    if (filter && !t.name.includes(filter)) continue;
    const ts = Date.now();
    try {
      await t.fn();
      passed++;
      console.log(`ok   ${t.name} (${((Date.now() - ts) / 1000).toFixed(1)} s)`);
    } catch (err) {
      failed++;
      console.log(`FAIL ${t.name} (${((Date.now() - ts) / 1000).toFixed(1)} s)\n     ${String(err?.stack ?? err).split('\n').slice(0, 6).join('\n     ')}`);
    }
  }
} catch (err) {
  failed++;
  console.log(`FAIL setup: ${err?.stack ?? err}`);
} finally {
  await browser?.close();
  server?.close();
  fs.rmSync(TMP, { recursive: true, force: true });
}
console.log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
