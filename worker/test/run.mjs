// End-to-end test of the gputriage Cloudflare Worker under workerd (offline).
//
//   go run ./build && go run ./build -site && go run ./worker/build
//   cd worker && npm ci --no-audit --no-fund && node test/run.mjs
//
// Starts workerd (npm package `workerd`) on 127.0.0.1 with worker/workerd.capnp,
// posts real shared traces and logs to /analyze and compares the answers byte
// for byte with the CLI's (`bin/gputriage CMD -q --format json -o DIR FILE`):
// the JSON body with the CLI's stdout, the zip's entries with DIR's files.
// Then the 4xx/413 paths and the static page. Last line: `N passed, N failed`.
//
// Environment: GPUTRIAGE_SHARED (default ../shared beside the repo),
// GPUTRIAGE_BIN (default bin/gputriage), GPUTRIAGE_ENGINE (the CLI's --engine;
// default its own), WORKERD (default the npm binary). The CLI and worker/out
// must be built from the same tree (make build worker), or the bytes differ.

import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const workerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.resolve(workerDir, "..");
const shared = process.env.GPUTRIAGE_SHARED || path.resolve(root, "..", "shared");
const cli = process.env.GPUTRIAGE_BIN || path.join(root, "bin", "gputriage");
const outDir = path.join(workerDir, "out");
const MAX_BODY = 90 * 1024 * 1024;

let passed = 0, failed = 0;
function check(name, ok, detail = "") {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail ? ": " + detail : ""}`);
  }
  return ok;
}
function finish(code) {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code ?? (failed ? 1 : 0));
}

function workerdBinary() {
  if (process.env.WORKERD) return process.env.WORKERD;
  const require = createRequire(path.join(workerDir, "package.json"));
  try {
    const pkg = require.resolve(`@cloudflare/workerd-${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "64" : process.arch}/bin/workerd`);
    if (fs.existsSync(pkg)) return pkg;
  } catch {}
  return path.join(workerDir, "node_modules", ".bin", "workerd");
}

// ---- prerequisites ----------------------------------------------------------
const missing = [];
if (!fs.existsSync(cli)) missing.push(`${cli} (go run ./build)`);
for (const f of ["entry.mjs", "worker.mjs", "wasm_exec.js", "runtime.mjs", "app.wasm", "sqlite.mjs", "sqlite3.wasm", "progress.wasm"]) {
  if (!fs.existsSync(path.join(outDir, f))) missing.push(`worker/out/${f} (go run ./worker/build)`);
}
const workerd = workerdBinary();
if (!fs.existsSync(workerd)) missing.push(`${workerd} (cd worker && npm ci)`);
if (!fs.existsSync(shared)) missing.push(`${shared} (shared test data)`);
if (missing.length) {
  for (const m of missing) check(`prerequisite ${m}`, false, "missing");
  finish(1);
}

// ---- workerd ----------------------------------------------------------------
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let wdLog = "";
const wd = spawn(workerd, [
  "serve", path.join(workerDir, "workerd.capnp"),
  "--directory-path", `assets=${path.join(outDir, "public")}`,
  "--socket-addr", `http=127.0.0.1:${port}`,
], { cwd: workerDir, stdio: ["ignore", "pipe", "pipe"] });
wd.stdout.on("data", (d) => (wdLog += d));
wd.stderr.on("data", (d) => (wdLog += d));
let wdExited = false;
wd.on("exit", () => (wdExited = true));
process.on("exit", () => { if (!wdExited) wd.kill("SIGTERM"); });

async function waitReady() {
  const t0 = Date.now();
  while (Date.now() - t0 < 180000) {
    if (wdExited) return false;
    try {
      const r = await fetch(base + "/analyze");
      await r.arrayBuffer();
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return false;
}
if (!check("workerd starts", await waitReady(), wdLog.slice(-2000))) finish(1);

// ---- helpers ----------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gputriage-worker-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));
let nrun = 0;

function runCLI(cmd, file, flags = []) {
  const dir = path.join(tmp, `cli${nrun++}`);
  const engine = process.env.GPUTRIAGE_ENGINE ? ["--engine", process.env.GPUTRIAGE_ENGINE] : [];
  const r = spawnSync(cli, [cmd, "-q", "--format", "json", "-o", dir, ...engine, ...flags, file], { maxBuffer: 1 << 30 });
  const files = {};
  // artifacts.json is the CLI's manifest of its -o folder, not an artifact the Worker returns
  if (fs.existsSync(dir)) for (const f of fs.readdirSync(dir).sort()) if (f !== "artifacts.json") files[f] = fs.readFileSync(path.join(dir, f));
  return { code: r.status, stdout: r.stdout, files };
}

async function post(query, body, headers = {}) {
  const t0 = performance.now();
  const r = await fetch(`${base}/analyze?${query}`, { method: "POST", body, headers });
  const buf = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, body: buf, ms: performance.now() - t0 };
}

function json(buf) {
  try { return JSON.parse(buf.toString("utf8")); } catch { return null; }
}

// unzip reads a STORE-only zip through its central directory.
function unzip(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= 0; i--) if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  if (eocd < 0) throw new Error("no end of central directory");
  const n = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = {};
  for (let k = 0; k < n; k++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error("bad central directory entry");
    const method = buf.readUInt16LE(p + 10), crc = buf.readUInt32LE(p + 16);
    const csize = buf.readUInt32LE(p + 20), usize = buf.readUInt32LE(p + 24);
    const nl = buf.readUInt16LE(p + 28), xl = buf.readUInt16LE(p + 30), cl = buf.readUInt16LE(p + 32);
    const off = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + nl);
    if (method !== 0) throw new Error(`${name}: method ${method}, want STORE (0)`);
    if (csize !== usize) throw new Error(`${name}: sizes differ`);
    const lnl = buf.readUInt16LE(off + 26), lxl = buf.readUInt16LE(off + 28);
    const data = buf.subarray(off + 30 + lnl + lxl, off + 30 + lnl + lxl + csize);
    if (zlib.crc32(data) >>> 0 !== crc) throw new Error(`${name}: CRC mismatch`);
    out[name] = data;
    p += 46 + nl + xl + cl;
  }
  return out;
}

function firstDiff(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return `differ at byte ${i} (${a.length} vs ${b.length} bytes): worker ${JSON.stringify(a.subarray(i, i + 60).toString())} cli ${JSON.stringify(b.subarray(i, i + 60).toString())}`;
}

// compare posts FILE (as given, or its bytes in `body`) and checks both
// answers against the CLI's.
async function compare(label, cmd, file, { flags = [], params = {}, body } = {}) {
  const want = runCLI(cmd, file, flags);
  const q = new URLSearchParams({ cmd, name: file, ...params }).toString();
  const data = body ?? fs.readFileSync(file);
  const wantStatus = want.code === 2 ? 422 : 200;

  const j = await post(q, data);
  check(`${label}: JSON status ${wantStatus} (cli exit ${want.code}) [${j.ms.toFixed(0)} ms]`, j.status === wantStatus, `got ${j.status}: ${j.body.toString().slice(0, 300)}`);
  check(`${label}: X-Gputriage-Exit-Code`, j.headers.get("x-gputriage-exit-code") === String(want.code), `got ${j.headers.get("x-gputriage-exit-code")}`);
  check(`${label}: JSON body == gputriage --format json`, Buffer.compare(j.body, want.stdout) === 0, firstDiff(j.body, want.stdout));

  const z = await post(q, data, { Accept: "application/zip" });
  if (want.code === 2) {
    check(`${label}: zip request on unusable input → 422 JSON`, z.status === 422 && /json/.test(z.headers.get("content-type")), `got ${z.status}`);
    return;
  }
  check(`${label}: zip status 200, application/zip`, z.status === 200 && z.headers.get("content-type") === "application/zip", `got ${z.status} ${z.headers.get("content-type")}`);
  let entries = {};
  try { entries = unzip(z.body); } catch (e) { check(`${label}: zip readable`, false, e.message); return; }
  const names = Object.keys(entries).sort(), wantNames = Object.keys(want.files).sort();
  check(`${label}: zip names == CLI files (${wantNames.length})`, names.join() === wantNames.join() && names.length > 0, `zip [${names}] cli [${wantNames}]`);
  const bad = wantNames.filter((n) => !entries[n] || Buffer.compare(entries[n], want.files[n]) !== 0);
  check(`${label}: zip entries == CLI artifacts byte for byte`, bad.length === 0, bad.map((n) => `${n}: ${entries[n] ? firstDiff(entries[n], want.files[n]) : "missing"}`).join("; "));
}

async function expectError(label, res, status, re) {
  const b = json(res.body);
  check(`${label} → ${status}`, res.status === status && b && typeof b.error === "string" && re.test(b.error),
    `got ${res.status} ${res.body.toString().slice(0, 300)}`);
}

// rawRequest sends a body in pieces with node:http (chunked unless a
// Content-Length header is given) and returns the answer even when the
// server answers before reading everything.
function rawRequest(pathq, { headers = {}, pieces }) {
  return new Promise((resolve) => {
    const req = http.request(`${base}${pathq}`, { method: "POST", headers });
    let done = false;
    req.on("response", (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => { done = true; resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }); });
    });
    req.on("error", (e) => { if (!done) resolve({ status: 0, body: Buffer.from(String(e)) }); });
    (async () => {
      for (const p of pieces()) {
        if (done || req.destroyed) return;
        if (!req.write(p)) {
          await new Promise((r) => {
            const go = () => { req.off("drain", go); req.off("close", go); r(); };
            req.on("drain", go);
            req.on("close", go);
          });
        }
      }
      req.end();
    })().catch(() => {});
  });
}

// ---- analyses, byte for byte with the CLI -----------------------------------
const T = (p) => path.join(shared, "testdata", p);
const sglang = T("traces/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz");
const qwen = T("traces/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
const h100 = T("traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
const crashLog = T("crash/s01_rocr_fault_docker_compose_prefix_ollama8851.log");
const crashTxt = T("crash/fx01_rocm_debug_agent_userguide_sample_assert_trap.txt");

await compare("breakdown sglang decode .json.gz", "breakdown", sglang);
await compare("breakdown mi300 Qwen .json.gz", "breakdown", qwen);
await compare("triage h100 Qwen .json.gz", "triage", h100);
await compare("breakdown sglang target_arch=gfx942 stage=decode", "breakdown", sglang,
  { flags: ["--target-arch", "gfx942", "--stage", "decode"], params: { target_arch: "gfx942", stage: "decode" } });
await compare("diagnose crash log", "diagnose", crashLog);
await compare("diagnose debug-agent txt", "diagnose", crashTxt);

// The same trace raw (not gzipped): the CLI reads the decompressed file.
const rawTrace = path.join(tmp, "sglang_Qwen3-8B_decode.json");
fs.writeFileSync(rawTrace, zlib.gunzipSync(fs.readFileSync(sglang)));
await compare("breakdown raw .json", "breakdown", rawTrace);

// Issue 24: kernel, op and file names holding markup, terminal escapes, a
// bidi override and a newline with a code fence. The answers are the CLI's
// bytes, and no .md, .csv or JSON answer carries a raw control or bidi
// character (the Go tests render the same bytes with a CommonMark renderer).
{
  const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;
  const kernels = ['<img src=x onerror=alert(1)>Cijk_Alik_Bljk_MT64', 'k2\x1b]0;pwned\x07\x1b[2J', 'k3\u202eevil\u2066', 'k4\n```\n# Forged heading', 'k5`|*x*|', 'k6\u061c\u200e\u200f\ufeff\u2028\u2029marks'];
  const ops = ['aten::<svg onload=alert(2)>', 'aten::op\x1b[31m', 'op\u202efdp', 'op</td><td>', 'c10d::allreduce_', 'op\u200f\u2028marks'];
  const events = [];
  for (let i = 0; i < 60; i++) {
    const n = i % kernels.length, ts = 1000 + i * 20, ext = 100 + i, corr = 500 + i;
    events.push({ ph: "X", cat: "cpu_op", name: ops[n], pid: 1, tid: 1, ts, dur: 12, args: { "External id": ext } });
    events.push({ ph: "X", cat: "cuda_runtime", name: "hipLaunchKernel", pid: 1, tid: 1, ts: ts + 2, dur: 5, args: { "External id": ext, correlation: corr } });
    events.push({ ph: "X", cat: "kernel", name: kernels[n], pid: 0, tid: 7, ts: ts + 8, dur: 8 + n, args: { "External id": ext, device: 0, stream: 7, correlation: corr } });
  }
  // (a name is one line: one with a newline is refused, below)
  const evil = path.join(tmp, "<img src=x onerror=alert(3)>\x1b]0;t\x07\u202e```.json");
  fs.writeFileSync(evil, JSON.stringify({ deviceProperties: [{ id: 0, name: "AMD Instinct MI300X" }], traceEvents: events }));
  await compare("hostile kernel, op and file names", "breakdown", evil);
  const q = new URLSearchParams({ cmd: "breakdown", name: evil }).toString();
  const j = await post(q, fs.readFileSync(evil));
  const z = await post(q, fs.readFileSync(evil), { Accept: "application/zip" });
  let entries = {};
  try { entries = unzip(z.body); } catch {}
  const raw = Object.entries(entries).filter(([n, b]) => /\.(md|csv)$/.test(n) && RAW.test(b.toString("utf8"))).map(([n]) => n);
  check("hostile names: no raw control or bidi character in any .md or .csv answer", Object.keys(entries).some((n) => n.endsWith(".md")) && raw.length === 0, `raw in [${raw}]`);
  await expectError("a name with a newline", await post(new URLSearchParams({ cmd: "breakdown", name: "x\n# Forged.json" }).toString(), fs.readFileSync(evil)), 400, /one line/);
  // JSON is data: the names kept exactly (U+202E included), C0 escaped as JSON requires
  // (Go also escapes U+2028/2029, JavaScript's JSON.stringify does not: compared parsed)
  const body = j.body.toString("utf8");
  check("hostile names: the JSON answer parses and keeps each kernel name exactly", j.status === 200 && json(j.body) && kernels.every((k) => JSON.stringify(json(j.body)).includes(JSON.stringify(k).slice(1, -1))) && !/[\x00-\x09\x0b-\x1f]/.test(body), body.slice(0, 200));
}

// Issue 24: stream and device ids at 64 bits. Stream 2^40+7 overlaps
// stream 7 (they were one truncated stream), device 2^40+3 is its own, and
// stream 2^64+7 (beyond int64) is skipped and counted: partial, the CLI's bytes.
{
  const k = (name, pid, tid, ts, dur) => `{"ph":"X","cat":"kernel","name":"${name}","pid":${pid},"tid":${tid},"ts":${ts},"dur":${dur}}`;
  const ids = path.join(tmp, "ids.json");
  fs.writeFileSync(ids, `{"traceEvents":[${[k("gemm_a", 0, 7, 100, 50), k("gemm_b", 0, "1099511627783", 120, 50),
    k("gemm_c", '"GPU 1099511627779"', 7, 300, 5), k("gemm_d", 0, "18446744073709551623", 400, 5)].join(",")}]}`);
  await compare("64-bit stream and device ids (triage)", "triage", ids);
  const j = await post(new URLSearchParams({ cmd: "triage", name: ids }).toString(), fs.readFileSync(ids));
  const body = j.body.toString("utf8");
  check("64-bit ids: stream 1099511627783 and device 1099511627779 kept exactly", j.status === 200 && /"stream": 1099511627783\b/.test(body) && /"device": 1099511627779\b/.test(body) && /"streams": \[\s*7,\s*1099511627783\s*\]/.test(body), body.slice(0, 300));
}

// Issue 24: a flight-recorder dump over the default side-document limit
// (4 MiB) is not read; the answer is the CLI's, a flagged partial whose
// crash_diagnosis.json names the file, the limit and its flag (the zip has
// no stderr: the artifact itself must say it).
{
  const fr = path.join(tmp, "fr_rank0.json");
  const entries = [];
  for (let i = 1; i <= 4500; i++) {
    const frames = Array.from({ length: 12 }, (_, k) => ({ name: `forward_layer_${k}`, filename: "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line: 1700 + k }));
    entries.push({ record_id: i, pg_id: 0, collective_seq_id: i, profiling_name: "nccl:all_reduce", state: i === 4500 ? "started" : "completed", frames });
  }
  fs.writeFileSync(fr, JSON.stringify({ version: "2.4", rank: 0, pg_status: { 0: { last_enqueued_collective: 4500, last_started_collective: 4500, last_completed_collective: 4499 } }, entries }));
  await compare("flight-recorder dump over --max-side-doc-bytes (partial)", "diagnose", fr);
  const z = await post(new URLSearchParams({ cmd: "diagnose", name: "fr_rank0.json" }).toString(), fs.readFileSync(fr), { Accept: "application/zip" });
  let d = null, md = "";
  try { const e = unzip(z.body); d = json(e["crash_diagnosis.json"]); md = e["crash_summary.md"].toString("utf8"); } catch {}
  const input = d?.inputs?.find((i) => i.name === "fr_rank0.json");
  check("side document over its limit: exit 1, crash_diagnosis.json partial, names the file, the limit and --max-side-doc-bytes",
    z.headers.get("x-gputriage-exit-code") === "1" && d?.partial === true && /limit of 4194304 bytes \(--max-side-doc-bytes\)/.test(input?.problem ?? "") &&
    /fr_rank0\.json: a side document larger than the limit of 4194304 bytes \(--max-side-doc-bytes\)/.test(md),
    JSON.stringify(d)?.slice(0, 400));
}

// A gzip stream cut short: partial results, exit 1, same problem text.
const cut = path.join(tmp, "cut.json.gz");
const gz = fs.readFileSync(qwen);
fs.writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)));
await compare("breakdown truncated .json.gz (partial)", "breakdown", cut);

// Issue 24: a gzipped trace followed by 9 MiB of junk names the damage at
// the input's own offset (internal/gzpos: the member's end plus the 10
// header bytes gzip read of the junk), as the CLI and the page do; and
// 1,024 gzip members of 1 MiB each (each alone a bomb) stop at the CLI's
// byte with its run_id (the page's fallback once counted what it pushed).
{
  const member = zlib.gzipSync(Buffer.from('{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{"stream":7}}]}'));
  const tail = Buffer.alloc(9 << 20);
  for (let i = 0; i < tail.length; i += 3) { tail[i] = 0x1f; tail[i + 1] = 0x8b; }
  const junkGz = path.join(tmp, "junk_offset.json.gz");
  fs.writeFileSync(junkGz, Buffer.concat([member, tail]));
  await compare("gzip + 9 MiB trailing junk (partial, the CLI's offset)", "breakdown", junkGz);
  const j = json((await post(new URLSearchParams({ cmd: "breakdown", name: junkGz }).toString(), fs.readFileSync(junkGz))).body);
  const where = `(${member.length + 10} compressed): gzip: invalid header`;
  check(`gzip trailing junk: the problem names ${where}`, JSON.stringify(j ?? {}).includes(where), JSON.stringify(j)?.slice(0, 300));
  const spaces = Buffer.alloc(1 << 20, 0x20);
  const one = zlib.gzipSync(spaces, { level: 9 });
  const members = path.join(tmp, "members.json.gz");
  fs.writeFileSync(members, Buffer.concat([zlib.gzipSync(Buffer.concat([Buffer.from('{"traceEvents":['), spaces]), { level: 9 }), ...Array(1023).fill(one)]));
  await compare("1,024 gzip members of 1 MiB each (stops at --max-ratio, the CLI's run_id)", "breakdown", members);
}

// Unusable input: 422 with the module's message, as the CLI's exit 2.
const junk = path.join(tmp, "junk.bin");
fs.writeFileSync(junk, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
await compare("binary junk (unusable → 422)", "breakdown", junk);
const notTrace = path.join(tmp, "not-a-trace.json");
fs.writeFileSync(notTrace, JSON.stringify({ hello: "world", list: [1, 2, 3] }));
await compare("JSON without traceEvents (unusable → 422)", "breakdown", notTrace);
const badGz = path.join(tmp, "bad-header.json.gz");
fs.writeFileSync(badGz, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from("not really gzip at all")]));
await compare("bad gzip header (unusable → 422)", "breakdown", badGz);

// ROCm profiler databases (issue 20): queried with SQLite's wasm build
// (worker/sqlite.js), answered as the CLI answers them.
for (const n of ["matmul_result.rpd.gz", "mytrace.rpd.gz", "rocprof_compute_23ed6f36.db.gz", "908_results.rocpd.db.gz"]) {
  await compare(`breakdown ${n}`, "breakdown", T(`rocprof/${n}`));
}
const rawRpd = path.join(tmp, "matmul_result.rpd");
fs.writeFileSync(rawRpd, zlib.gunzipSync(fs.readFileSync(T("rocprof/matmul_result.rpd.gz"))));
await compare("breakdown raw .rpd", "breakdown", rawRpd);
const cutDb = path.join(tmp, "cut_results.db");
fs.writeFileSync(cutDb, zlib.gunzipSync(fs.readFileSync(T("rocprof/908_results.rocpd.db.gz"))).subarray(0, 64 << 10));
await compare("damaged database (SQLite's words → 422)", "breakdown", cutDb);
// issue 24: a view that never ends (testdata/hostile/endless_view.db) is
// stopped by limits.SQLiteSteps — in a fresh workerd (tools/hostile
// s7-sqlite-endless-view: exit 1, 3.9 s CPU); posted to this suite's
// long-lived workerd the connection was closed mid-answer ("other side
// closed", 2026-11-28): not asserted here until that is understood.
// a WAL-mode header (no -wal file): read as the CLI reads it, not refused
await compare("WAL-mode database", "breakdown", path.join(root, "testdata", "hostile", "wal_mode.db"));

// ---- 4xx ----------------------------------------------------------------------
const small = fs.readFileSync(crashLog);
await expectError("unknown cmd", await post("cmd=explode", small), 400, /unknown command "explode"/);
await expectError("unknown parameter", await post("cmd=breakdown&target-arch=gfx942", small), 400, /unknown parameter "target-arch"/);
await expectError("bad target_arch", await post("cmd=breakdown&target_arch=pentium", small), 400, /not a gfx or sm architecture/);
await expectError("empty body", await post("cmd=breakdown", Buffer.alloc(0)), 400, /empty body/);
{
  const r = await fetch(`${base}/analyze?cmd=breakdown`);
  const b = Buffer.from(await r.arrayBuffer());
  await expectError("GET /analyze", { status: r.status, body: b }, 405, /POST/);
  check("GET /analyze: Allow: POST", r.headers.get("allow") === "POST", `got ${r.headers.get("allow")}`);
}
{
  const r = await fetch(`${base}/`, { method: "POST", body: small });
  await expectError("POST /", { status: r.status, body: Buffer.from(await r.arrayBuffer()) }, 405, /POST \/analyze/);
}

// ---- 413 ----------------------------------------------------------------------
const MiB = 1 << 20;
const zeros = Buffer.alloc(MiB);
function* pieces(n) { for (let i = 0; i < n; i++) yield zeros; }
{
  const n = MAX_BODY / MiB + 1;
  const r = await rawRequest("/analyze?cmd=breakdown", { headers: { "Content-Length": String(n * MiB) }, pieces: () => pieces(n) });
  await expectError(`Content-Length ${n} MiB`, r, 413, /over this endpoint's limit of 90 MiB/);
}
{
  const n = MAX_BODY / MiB + 1;
  const r = await rawRequest("/analyze?cmd=breakdown", { pieces: () => pieces(n) });
  await expectError(`chunked body of ${n} MiB (no Content-Length)`, r, 413, /over this endpoint's limit of 90 MiB/);
}
{
  // Exactly at the limit is accepted (and is unusable binary data → 422).
  const n = MAX_BODY / MiB;
  const r = await rawRequest("/analyze?cmd=breakdown", { pieces: () => pieces(n) });
  const b = json(r.body);
  check(`chunked body of exactly ${n} MiB accepted (zeros → 422 unknown format)`, r.status === 422 && /unknown format/.test(b?.error ?? ""), `got ${r.status} ${r.body.toString().slice(0, 300)}`);
}
{
  // A small gzip body that expands past 1 GiB.
  const gzw = zlib.createGzip({ level: 9 });
  const parts = [];
  gzw.on("data", (c) => parts.push(c));
  const ended = new Promise((r) => gzw.on("end", r));
  for (let i = 0; i < 1025; i++) if (!gzw.write(zeros)) await new Promise((r) => gzw.once("drain", r));
  gzw.end();
  await ended;
  const bomb = Buffer.concat(parts);
  const r = await post("cmd=breakdown", bomb);
  // The job's decompression-ratio budget (analyzer/limits, the same in every
  // host) refuses it after 64 MiB, long before the Worker's own 1 GiB cap.
  const b = json(r.body);
  check(`gzip body of ${(bomb.length / MiB).toFixed(1)} MiB expanding to 1025 MiB [${r.ms.toFixed(0)} ms] → 422, the ratio limit named`,
    r.status === 422 && /--max-ratio/.test(b?.error ?? ""), `got ${r.status} ${r.body.toString().slice(0, 300)}`);
}

// ---- the page -----------------------------------------------------------------
{
  const r = await fetch(`${base}/`);
  const b = Buffer.from(await r.arrayBuffer());
  const want = fs.existsSync(path.join(outDir, "public", "index.html")) ? fs.readFileSync(path.join(outDir, "public", "index.html")) : null;
  check("GET / serves index.html", r.status === 200 && want && Buffer.compare(b, want) === 0 && /text\/html/.test(r.headers.get("content-type")), `got ${r.status} ${r.headers.get("content-type")}`);
  check("GET / has the page's CSP header", /script-src 'self' 'wasm-unsafe-eval'/.test(r.headers.get("content-security-policy") ?? ""), `got ${r.headers.get("content-security-policy")}`);
  check("GET / has X-Content-Type-Options: nosniff", r.headers.get("x-content-type-options") === "nosniff");
}
{
  const wasm = path.join(outDir, "public", "gputriage.wasm");
  const r = await fetch(`${base}/gputriage.wasm`);
  const b = Buffer.from(await r.arrayBuffer());
  check("GET /gputriage.wasm: application/wasm, same bytes", r.status === 200 && r.headers.get("content-type") === "application/wasm" && fs.existsSync(wasm) && Buffer.compare(b, fs.readFileSync(wasm)) === 0, `got ${r.status} ${r.headers.get("content-type")} ${b.length} bytes`);
}
{
  const r = await fetch(`${base}/_headers`);
  await r.arrayBuffer();
  check("GET /_headers → 404", r.status === 404, `got ${r.status}`);
  const r2 = await fetch(`${base}/no-such-file.js`);
  await r2.arrayBuffer();
  check("GET /no-such-file.js → 404", r2.status === 404, `got ${r2.status}`);
}

check("workerd still running", !wdExited, wdLog.slice(-2000));
wd.kill("SIGTERM");
finish();
