// The sweep's page and Worker hosts: each case of DIR/cases.json that applies
// is dropped on the page in Chromium (playwright-core, as site/test/e2e.mjs)
// and posted to the Worker under workerd (as worker/test/run.mjs), one fresh
// workerd per case so its peak RSS is the case's. Results go where the CLI's
// go: DIR/out/<case>/<host>/{run.json,stderr,art/}; `go run ./tools/hostile
// check DIR` judges them.
//
//   node tools/hostile/hosts.mjs DIR [page] [worker] [--only id,prefix*]
//
// Needs `go run ./build -site && go run ./worker/build`, `npm ci` here and in
// worker/, and Debian's chromium (CHROMIUM=...).

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');
const WORKER = path.join(ROOT, 'worker');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const args = process.argv.slice(2);
const DIR = path.resolve(args[0]);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
const want = args.filter((a) => a === 'page' || a === 'worker');
const hosts = want.length ? want : ['page', 'worker'];
// ids, or id prefixes ending in * (as cli.go's -only)
const picked = (id) => only.some((o) => o === id || (o.endsWith('*') && id.startsWith(o.slice(0, -1))));
const cases = JSON.parse(fs.readFileSync(path.join(DIR, 'cases.json'), 'utf8')).filter((c) => !only || picked(c.id));
if (process.env.HOSTILE_REVERSE) cases.reverse();

// claim: as cli.go's: with HOSTILE_SINCE (Unix seconds) set, several
// runners share one sweep; a case × host is run by the first to claim it.
function claim(id, host) {
  const since = Number(process.env.HOSTILE_SINCE);
  if (!since) return true;
  const p = path.join(DIR, 'out', id, `${host}.claim`);
  for (const f of [path.join(DIR, 'out', id, host, 'run.json'), p]) {
    try { if (fs.statSync(f).mtimeMs / 1000 >= since) return false; } catch { /* none */ }
  }
  fs.mkdirSync(path.dirname(p), { recursive: true });
  try { if (fs.statSync(p).mtimeMs / 1000 < since) fs.rmSync(p); } catch { /* none */ }
  try { fs.writeFileSync(p, '', { flag: 'wx' }); return true; } catch { return false; }
}
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

function save(c, host, run, arts, stderr = '') {
  const out = path.join(DIR, 'out', c.id, host);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, 'art'), { recursive: true });
  for (const [n, b] of Object.entries(arts)) {
    fs.mkdirSync(path.dirname(path.join(out, 'art', n)), { recursive: true });
    fs.writeFileSync(path.join(out, 'art', n), b);
  }
  fs.writeFileSync(path.join(out, 'stderr'), stderr);
  fs.writeFileSync(path.join(out, 'run.json'), JSON.stringify(run, null, 2));
  console.log(`${c.id.padEnd(24)} ${host.padEnd(6)} exit ${String(run.exit).padStart(2)} ${run.seconds.toFixed(1).padStart(6)} s ${run.rss_mb.toFixed(0).padStart(6)} MB ${run.error ?? ''} ${(run.problems ?? []).join('; ')}`);
}

// unzip reads a STORE-only zip through its central directory.
function unzip(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= 0; i--) if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) throw new Error('no end of central directory');
  const n = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = {};
  for (let k = 0; k < n; k++) {
    const csize = buf.readUInt32LE(p + 20), nl = buf.readUInt16LE(p + 28), xl = buf.readUInt16LE(p + 30), cl = buf.readUInt16LE(p + 32);
    const off = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nl);
    const lnl = buf.readUInt16LE(off + 26), lxl = buf.readUInt16LE(off + 28);
    out[name] = buf.subarray(off + 30 + lnl + lxl, off + 30 + lnl + lxl + csize);
    p += 46 + nl + xl + cl;
  }
  return out;
}

// ---------------------------------------------------------------- page

function startServer() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1];
  const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p.endsWith('/')) p += 'index.html';
    const file = path.join(DIST, path.normalize(p));
    if (!file.startsWith(DIST) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': csp, 'Cache-Control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// treeCPU sums the CPU seconds of pid and its descendants (Chromium's
// renderer and worker processes): the page's CPU, judged as the CLI's is,
// whatever the machine's load.
function treeCPU(root) {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ');
      const ppid = Number(f[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch { /* gone */ }
  }
  let sum = 0;
  const todo = [root];
  while (todo.length) {
    const p = todo.pop();
    sum += cpuSeconds(p);
    todo.push(...(kids.get(p) ?? []));
  }
  return sum;
}

// filesOf lists a folder input's files (the page takes the files of a
// dropped folder; a file input takes files only), or the file itself.
function filesOf(p) {
  if (!fs.statSync(p).isDirectory()) return [p];
  return fs.readdirSync(p, { recursive: true }).map((f) => path.join(p, f)).filter((f) => fs.statSync(f).isFile()).sort();
}

async function pageCase(browser, base, c) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const problems = [];
  const run = { exit: 0, seconds: 0, rss_mb: 0 };
  let arts = {}, stderr = '';
  try {
    await page.goto(`${base}/`);
    await page.waitForFunction(() => window.__gputriage?.moduleMs != null, null, { timeout: 60_000 });
    // the case's command, as the CLI runs it: auto would pick triage for two
    // traces that are not distinct ranks (a formal and a mapping trace)
    if (['breakdown', 'triage', 'diff'].includes(c.cmd)) await page.selectOption('#command', c.cmd);
    const t0 = Date.now();
    const cpu0 = browser.__pid ? treeCPU(browser.__pid) : 0;
    await page.setInputFiles('#pick-files', c.inputs.flatMap((f) => filesOf(path.join(DIR, 'cases', c.id, 'in', f))));
    // stopped at twice its CPU budget (Chromium's process tree: renderer,
    // the module's Web Workers), or by the wall-clock hang guard
    const guard = hangGuard(c.time_s);
    for (;;) {
      if (await page.evaluate(() => ['done', 'error'].includes(document.body.dataset.state))) break;
      const cpu = browser.__pid ? treeCPU(browser.__pid) - cpu0 : 0;
      const wall = (Date.now() - t0) / 1000;
      if (cpu > 2 * c.time_s) {
        run.exit = -1; run.timed_out = true; run.stop = 'cpu'; run.error = `over CPU budget: stopped at ${cpu.toFixed(0)} s CPU (${wall.toFixed(0)} s wall)`;
        break;
      }
      if (wall > guard) {
        run.exit = -1; run.timed_out = true; run.stop = 'hang'; run.error = `hang guard: no end after ${guard.toFixed(0)} s wall clock (${cpu.toFixed(1)} s CPU)`;
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    run.seconds = (Date.now() - t0) / 1000;
    if (browser.__pid) run.cpu_seconds = treeCPU(browser.__pid) - cpu0;
    const st = await page.evaluate(() => ({ state: document.body.dataset.state, err: document.querySelector('#error')?.textContent ?? '', xss: window.__xss, mem: window.__gputriage?.stats?.memory ?? 0 }));
    run.rss_mb = st.mem / 2 ** 20; // the module's linear memory (the page's own RSS is Chromium's)
    if (st.xss !== undefined) problems.push('a script from the input ran');
    const injected = await page.locator('#report marquee, #report script, #report img, #report [onerror], #report [onload]').count();
    if (injected) problems.push(`${injected} elements from the input in the report`);
    const raw = await page.evaluate((src) => {
      const re = new RegExp(src);
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
      for (let n = walk.currentNode; n; n = walk.nextNode()) {
        if (n.nodeType === Node.TEXT_NODE && re.test(n.data)) return `text ${JSON.stringify(n.data.slice(0, 60))}`;
        // data-* attributes are the page's own keys (never shown)
        if (n.nodeType === Node.ELEMENT_NODE) for (const a of n.attributes) if (!a.name.startsWith('data-') && re.test(a.value)) return `${n.localName}[${a.name}]`;
      }
      return '';
    }, RAW.source);
    if (raw) problems.push(`raw control character in the page: ${raw}`);
    if (st.state === 'error') {
      run.exit = 2; stderr = st.err; run.error = st.err.slice(0, 300);
    } else if (st.state === 'done') {
      if (await page.locator('#summary .banner.warn').count()) run.exit = 1;
      const [d] = await Promise.all([page.waitForEvent('download'), page.locator('#export a[download$=".zip"]').click()]);
      const zp = path.join(DIR, "out", c.id, "page.zip");
      await d.saveAs(zp);
      arts = unzip(fs.readFileSync(zp));
      fs.rmSync(zp);
    }
  } catch (e) {
    run.exit = -1; run.error = String(e).slice(0, 300);
  } finally {
    await context.close();
  }
  if (errors.length) problems.push(`page errors: ${errors.join(' | ').slice(0, 200)}`);
  if (problems.length) run.problems = problems;
  save(c, 'page', run, arts, stderr);
}

// ---------------------------------------------------------------- Worker

function workerdBinary() {
  if (process.env.WORKERD) return process.env.WORKERD;
  const require = createRequire(path.join(WORKER, 'package.json'));
  try {
    return require.resolve(`@cloudflare/workerd-${process.platform}-${process.arch === 'x64' ? '64' : process.arch}/bin/workerd`);
  } catch {
    return path.join(WORKER, 'node_modules', '.bin', 'workerd');
  }
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// hangGuard is the wall-clock seconds after which a run is stopped as hung,
// as the CLI's (cli.go): twice its CPU budget times the larger of
// HOSTILE_WALL_FACTOR (default 3) and twice the load per core, at most 20.
function hangGuard(timeS) {
  let f = Number(process.env.HOSTILE_WALL_FACTOR) || 3;
  try {
    const l = Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) / os.availableParallelism();
    if (2 * l > f) f = Math.min(2 * l, 20);
  } catch { /* no /proc */ }
  return 2 * timeS * f;
}

function cpuSeconds(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime in clock ticks (USER_HZ 100)
  } catch { return 0; }
}

function peakRSS(pid) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : 0;
  } catch { return 0; }
}

// post sends body as a client that reads the answer whenever it comes:
// with Expect: 100-continue (as curl) the Worker refuses a body over its
// limit before any byte is sent, and an answer that arrives while the body
// is still being written (413, then Connection: close) is kept rather than
// lost to the reset of the upload (fetch reports "fetch failed" then).
function post(url, body, signal) {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, {
      method: 'POST', signal,
      headers: { Accept: 'application/zip', 'Content-Length': body.length, Expect: '100-continue' },
    });
    // a server that ignores Expect gets the body after a second, as curl does
    let sent = false;
    const send = () => { if (!sent) { sent = true; req.end(body); } };
    const wait = setTimeout(send, 1000);
    req.on('continue', () => { clearTimeout(wait); send(); });
    req.on('response', (res) => {
      clearTimeout(wait);
      answered = true;
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (e) => { clearTimeout(wait); if (!answered) reject(e); });
  });
}

async function workerCase(c) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const wd = spawn(workerdBinary(), ['serve', path.join(WORKER, 'workerd.capnp'), '--directory-path', `assets=${path.join(WORKER, 'out', 'public')}`,
    '--socket-addr', `http=127.0.0.1:${port}`], { cwd: WORKER, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  wd.stdout.on('data', (d) => (log += d));
  wd.stderr.on('data', (d) => (log += d));
  const run = { exit: 0, seconds: 0, rss_mb: 0 };
  let arts = {}, stderr = '';
  try {
    for (let t0 = Date.now(); ; await new Promise((r) => setTimeout(r, 200))) {
      try { await (await fetch(`${base}/analyze`)).arrayBuffer(); break; } catch { if (Date.now() - t0 > 180000) throw new Error(`workerd did not start: ${log.slice(-300)}`); }
    }
    const file = path.join(DIR, 'cases', c.id, 'in', c.inputs[0]);
    const q = new URLSearchParams({ ...(c.query ?? {}), cmd: c.cmd, name: c.inputs[0] });
    const payload = fs.readFileSync(file);
    const cpu0 = cpuSeconds(wd.pid); // workerd's start and the warm-up request are not the case's
    const t0 = Date.now();
    const ac = new AbortController();
    const guard = hangGuard(c.time_s);
    const timer = setInterval(() => {
      const cpu = cpuSeconds(wd.pid) - cpu0, wall = (Date.now() - t0) / 1000;
      if (cpu > 2 * c.time_s) {
        run.stop = 'cpu'; run.error = `over CPU budget: stopped at ${cpu.toFixed(0)} s CPU (${wall.toFixed(0)} s wall)`; ac.abort();
      } else if (wall > guard) {
        run.stop = 'hang'; run.error = `hang guard: no answer after ${guard.toFixed(0)} s wall clock (${cpu.toFixed(1)} s CPU)`; ac.abort();
      }
    }, 500);
    try {
      const r = await post(`${base}/analyze?${q}`, payload, ac.signal);
      run.seconds = (Date.now() - t0) / 1000;
      if (r.status === 200) {
        run.exit = Number(r.headers['x-gputriage-exit-code']);
        arts = unzip(r.body);
      } else {
        run.exit = r.status >= 500 ? -3 : 2;
        stderr = r.body.toString('utf8');
        run.error = `HTTP ${r.status}: ${stderr.slice(0, 300)}`;
      }
    } catch (e) {
      run.seconds = (Date.now() - t0) / 1000;
      run.exit = -1;
      run.timed_out = ac.signal.aborted;
      if (!ac.signal.aborted) run.error = `${e} ${log.slice(-300)}`;
    } finally {
      clearInterval(timer);
    }
    run.rss_mb = peakRSS(wd.pid);
    run.cpu_seconds = cpuSeconds(wd.pid) - cpu0;
    if (/fatal error|panic:/.test(log)) stderr += `\nworkerd: ${log.slice(-2000)}`;
  } catch (e) {
    run.exit = -1; run.error = String(e);
  } finally {
    wd.kill('SIGKILL');
  }
  save(c, 'worker', run, arts, stderr);
}

// ---------------------------------------------------------------- main

if (hosts.includes('page')) {
  const server = await startServer();
  const browserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const browser = await chromium.connect(browserServer.wsEndpoint());
  browser.__pid = browserServer.process().pid;
  try {
    for (const c of cases) if (c.hosts.includes('page') && claim(c.id, 'page')) await pageCase(browser, `http://127.0.0.1:${server.address().port}`, c);
  } finally {
    await browser.close();
    await browserServer.close();
    server.close();
  }
}
if (hosts.includes('worker')) {
  for (const c of cases) if (c.hosts.includes('worker') && claim(c.id, 'worker')) await workerCase(c);
}
