// The Web Worker that runs gputriage.wasm. The page's main thread never
// touches trace bytes: each File is streamed here, gunzipped by the browser
// (DecompressionStream; on request in a worker of its own, inflate-worker.js,
// pipelined with the parse) and pushed chunk by chunk into
// module memory through the push ABI (docs/abi.md). No whole-file string or
// ArrayBuffer ever exists.
//
// Protocol (main → worker):
//   {type:'module', module}                 reuse a compiled module (after cancel)
//   {type:'start', files:[{file, name}], opts}
//                                           opts.autoTriage: with command auto,
//                                           run triage when ≥ 2 files are traces
//                                           opts.inflateWorker: gunzip in a worker of
//                                           its own (default off; needs ≥ 2 cores)
//                                           opts.parsers: parser workers for a big trace
//                                           (default the core count; ≤ 1: none),
//                                           opts.blockMiB, opts.badSplit (tests)
//   {type:'config', parsers}                the page's parsers option, before any job
//                                           (how many parser workers to start when idle)
//   {type:'warm-elsewhere'}                 no warm-up job here (a warm-up worker does it)
//   {type:'warm-up', module, rounds}        warm-up worker: run the warm-up job rounds times, post 'warm'
//   {type:'fix', file, name, gzip}          perfetto-fix: two passes, output streamed
//                                           into a Blob (gzip: through CompressionStream)
// (worker → main):
//   {type:'ready', module, ms, phases}      compiled; keep it for the next worker
//                                           (phases: waitMs for the bytes, decodeMs, compileMs)
//   {type:'warm'}                           idle, warmed up, an instance waits for the next job
//   {type:'progress', …Progress}            throttled to ~10 Hz
//   {type:'result', result, stats}          result JSON of finish(), parsed
//   {type:'spans', buffer, ms}              then: the job's per-kernel intervals (the
//                                           module's spans export, docs/abi.md; buffer
//                                           null when it drew no lanes), transferred
//   {type:'fixed', blob, name, result, stats}
//   {type:'error', message}
import { WasiExit } from './wasi.js';
import { instantiateModule } from './instance.js';
import { compileModule } from 'gputriage-wasm';
import { gunzipInModule } from './gunzip.js';
import { inflateInWorker } from './inflate-worker.js';
import { gunzip } from './inflate.js';
import { ParserPool } from './parser-pool.js';
import { Splitter } from './split.js';
import { sqlite, isSQLite } from './sqlite.js';
import { compileSQLite } from './sqlite-wasm.js';
import queries from 'gputriage-queries';

const PROGRESS_MS = 100;
const SNIFF_BYTES = 64 << 10;
const BLOB_PART = 32 << 20;
const enc = new TextEncoder();
const dec = new TextDecoder();

let modulePromise = null;
let stderrTail = [];

let jobs = 0; // started and not finished; warm-up only runs when idle

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === 'module') {
    modulePromise = Promise.resolve(msg.module);
    idleSoon();
    return;
  }
  if (msg.type === 'config') { // the page's ?parsers=N, before any job: how many parser workers to keep ready
    configParsers = msg.parsers;
    return;
  }
  if (msg.type === 'warm-elsewhere') { // the page runs the warm-up in a worker of its own
    warmed = true;
    return;
  }
  if (msg.type === 'warm-up') { // this worker only warms the shared compiled code up
    modulePromise = Promise.resolve(msg.module);
    warmRounds(msg.rounds ?? 1).then(() => self.postMessage({ type: 'warm' }),
      (err) => self.postMessage({ type: 'error', message: `warm-up: ${err?.message ?? err}` }));
    return;
  }
  if (msg.type !== 'start' && msg.type !== 'fix') return;
  jobs++;
  const receivedAt = performance.timeOrigin + performance.now(); // epoch ms, for the page's phases
  try {
    if (msg.type === 'start') {
      const { result, stats, instance } = await run(msg.files, msg.opts ?? {});
      stats.receivedAt = receivedAt;
      stats.doneAt = performance.timeOrigin + performance.now();
      self.postMessage({ type: 'result', result, stats });
      // The timeline's kernels come after the report: the page draws the
      // report meanwhile, and the instance goes once they are copied out.
      const ts = performance.now();
      const buffer = spansOf(instance);
      self.postMessage({ type: 'spans', buffer, ms: performance.now() - ts }, buffer ? [buffer] : []);
    } else if (msg.type === 'fix') {
      const out = await fix(msg.file, msg.name, !!msg.gzip);
      self.postMessage({ type: 'fixed', ...out });
    }
  } catch (err) {
    const tail = stderrTail.length ? `\n${stderrTail.join('\n')}` : '';
    self.postMessage({ type: 'error', message: `${err?.message ?? err}${tail}` });
  } finally {
    jobs--;
    // The spare instance waits: the page is drawing the report now.
    idleSoon(AFTER_JOB_MS);
  }
};

/** The job's per-kernel intervals (report.Spans) as an ArrayBuffer, or null. */
function spansOf(m) {
  if (!m?.x.spans) return null; // a module built before the export
  try {
    const n = m.x.spans() >>> 0;
    if (!n) return null;
    return new Uint8Array(m.x.memory.buffer, m.x.output_ptr() >>> 0, n).slice().buffer;
  } catch (err) {
    console.warn('[gputriage] spans:', err?.message ?? err);
    return null;
  }
}

function getModule() {
  if (!modulePromise) {
    const t0 = performance.now();
    const phases = {};
    modulePromise = compileModule(phases).then((module) => {
      const ms = performance.now() - t0;
      phases.compileMs = ms - (phases.decodeMs ?? 0) - (phases.waitMs ?? 0);
      phases.compiledAt = performance.timeOrigin + performance.now(); // epoch ms: the page turns it into its clock
      self.postMessage({ type: 'ready', module, ms, phases });
      return module;
    });
  }
  return modulePromise;
}

// Compile eagerly so the first drop does not wait for it; a worker started
// with the compiled module (named 'compiled': worker-url.js, worker-blob.js)
// waits for it instead.
if (self.name !== 'compiled') getModule().then(() => idleSoon(), (err) => self.postMessage({ type: 'error', message: `loading gputriage.wasm: ${err.message}` }));

// While the user picks a file: run a tiny job through a throwaway instance
// once (V8 compiles wasm functions lazily and tiers hot ones up: the first
// real job would otherwise pay for that), and keep a fresh instance with
// the Go runtime already started for the next job.
let spare = null;
let pool = null; // the parser workers (issue 12), kept between jobs
let configParsers; // ?parsers=N (client.js), else the core count
const IDLE_PARSERS = 4; // at most this many started before a job asks for more
let warmed = false;
let idleTimer = 0;
const AFTER_JOB_MS = 1500;
function idleSoon(delay = 0) {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(async () => {
    if (jobs || !modulePromise) return;
    try {
      if (!warmed) {
        warmed = true;
        const w = await instantiate();
        if (jobs) return;
        warmUp(w);
      }
      if (!spare && !jobs) {
        spare = await instantiate();
        self.postMessage({ type: 'warm' });
      }
      // The parser workers, ready before a big trace comes (issue 12): their
      // start, instantiate and warm-up block cost a first drop ~0.5 s.
      const n = Math.min(IDLE_PARSERS, Math.floor(configParsers ?? self.navigator?.hardwareConcurrency ?? 1));
      if (!pool && !jobs && n > 1 && typeof Worker === 'function') {
        const module = await getModule();
        if (!pool && !jobs && WebAssembly.Module.exports(module).some((e) => e.name === 'block_begin')) pool = new ParserPool(n, module);
      }
    } catch (err) {
      console.warn('[gputriage] warm-up:', err?.message ?? err); // the next job instantiates itself
    }
  }, delay);
}

// A warm-up worker (client.js) shares the compiled module with the job's
// worker: functions it compiles lazily, and the hot ones V8 tiers up while
// it runs, are compiled for both. Each round is a fresh instance (the Go
// runtime starts again, as in a job).
async function warmRounds(n) {
  for (let i = 0; i < n; i++) warmUp(await instantiate());
}

/** The instance for a job: the spare when there is one, else a new one. */
async function jobInstance() {
  const m = spare;
  spare = null;
  return m ?? instantiate();
}

function warmUp(m) {
  const ev = [];
  for (let i = 0; i < 40; i++) {
    const ts = 1000 + i * 50;
    ev.push(`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":${ts},"dur":20,"args":{"External id":${i + 1}}}`,
      `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":${ts + 2},"dur":5,"args":{"External id":${i + 1},"correlation":${i + 100}}}`,
      `{"ph":"X","cat":"kernel","name":"k${i % 4}","pid":0,"tid":7,"ts":${ts + 10},"dur":8,"args":{"External id":${i + 1},"correlation":${i + 100},"device":0,"stream":7}}`);
  }
  m.callStr('begin', JSON.stringify({ command: 'auto' }));
  m.callStr('file_begin', 'warm-up.json');
  m.feed(enc.encode(`{"deviceProperties":[{"id":0,"name":"NVIDIA H100"}],"traceEvents":[${ev.join(',')}]}`));
  m.call('file_end');
  m.x.finish();
}

/** One fresh instance per job: a trapped or exited instance is unusable, and
 *  Go's heap never shrinks, so reuse would only carry garbage forward. */
async function instantiate() {
  const module = await getModule();
  stderrTail = [];
  return instantiateModule(module, (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
    console.warn('[gputriage.wasm]', line);
  });
}

/**
 * Push one File: file_begin, its (gunzipped) chunks through onChunk,
 * file_error on a read or gunzip failure, file_end.
 * @param {(chunk: Uint8Array, read: number) => (void|boolean|Promise<void|boolean>)} onChunk true: the file takes no more
 * @param {{inflateWorker?: boolean, split?: (hint: number) => (null|{onChunk: Function, onEnd: Function, clean: () => boolean})}} [o]
 *   split: given the size hint, a block feeder for this file (issue 12), or null: onChunk then
 *   gets every chunk and the feeder's onEnd runs at EOF; a read failure once the feeder holds
 *   bytes the module has not had (clean() false) restarts the job without blocks
 */
async function pushFile(m, file, name, onChunk, { inflateWorker = false, split = null } = {}) {
  m.callStr('file_begin', name);
  let read = 0;
  let fed = 0; // decompressed bytes pushed
  let gz = false;
  let reader = null;
  let feeder = null;
  try {
    gz = await isGzip(file);
    // Memory planning only: lets the module size its columns once.
    const hint = await sizeHint(file, gz);
    if (hint > 0) m.call('file_size', hint % 2 ** 32, Math.floor(hint / 2 ** 32));
    feeder = split?.(hint) ?? null;
    if (gz && inflateWorker && typeof Worker === 'function') {
      // Gunzip on another core, pipelined with the parse (inflate-worker.js).
      const r = inflateInWorker(file);
      reader = { read: async () => { const x = await r.read(); read = r.compressed(); return x; }, cancel: r.cancel };
    } else {
      // gzip: read counts what the inflater was handed, piece by piece
      // (inflate.js), so the ratio guard stops a bomb as the CLI's does.
      const count = (n) => { read += n; };
      const stream = gz ? gunzip(file.stream(), count) : file.stream().pipeThrough(new TransformStream({
        transform(chunk, ctl) { count(chunk.byteLength); ctl.enqueue(chunk); },
      }));
      reader = stream.getReader();
    }
    let stopped = false;
    // gzip: each chunk is pushed once the next one has come (or the stream
    // ended cleanly). On a truncated stream DecompressionStream hands over a
    // few bytes more than the CLI's Go gunzip gets out of it (tp_rank0 cut
    // at 60 %: one byte); the held chunk is then left to gunzipInModule,
    // which gives exactly the CLI's bytes.
    let held = null;
    const push = async (value, at) => {
      if (gz) m.x.file_read(read % 2 ** 32, Math.floor(read / 2 ** 32)); // the ratio guard's input
      fed += value.length;
      return await (feeder ? feeder.onChunk(value, at) : onChunk(value, at)) === true;
    };
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (gz) {
        const prev = held;
        held = { value, read };
        if (!prev) continue;
        if (await push(prev.value, prev.read)) { reader.cancel().catch(() => {}); stopped = true; break; }
      } else if (await push(value, read)) { reader.cancel().catch(() => {}); stopped = true; break; }
    }
    if (held && !stopped && await push(held.value, held.read)) { reader.cancel().catch(() => {}); stopped = true; }
    if (feeder && !stopped) await feeder.onEnd(read);
  } catch (err) {
    reader?.cancel().catch(() => {});
    if (err instanceof WasiExit || err instanceof WebAssembly.RuntimeError || err?.fromModule || err instanceof RestartJob) throw err;
    if (feeder && !feeder.clean()) throw new RestartJob(`${name}: ${describeReadError(err)} in block mode`);
    if (gz && err?.name === 'TypeError') { // damaged or multi-member gzip: the module reads it as the CLI
      await gunzipInModule(m, file, fed, onChunk);
      m.call('file_end');
      return;
    }
    // Keep what was pushed; the module flags the file partial.
    m.callStr('file_error', `${name}: ${describeReadError(err)} after ${read} of ${file.size} bytes`);
  }
  m.call('file_end');
}

/** Does the file (gunzipped) start with SQLite's magic? */
async function isDatabase(file) {
  let reader;
  try {
    let stream = file.slice(0, 64 << 10).stream();
    if (await isGzip(file)) stream = gunzip(stream);
    reader = stream.getReader();
    const parts = [];
    let n = 0;
    while (n < 16) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      n += value.length;
    }
    return isSQLite(concat(parts, n));
  } catch {
    return false; // a short or damaged file: pushFile says what is wrong
  } finally {
    reader?.cancel().catch(() => {});
  }
}

/** Ends the row stream early: the module takes no more of the file. */
class StopRows extends Error {}

/**
 * Push a SQLite database (rocpd, RPD, rocprof-compute) as the CLI does
 * (cmd/gputriage/input.go, internal/sqlrows): the file, gunzipped, goes
 * into SQLite's heap; SQLite (jsbridge/sqlite.js) runs the row-stream
 * queries and the module gets the rows, never the file's bytes.
 */
async function pushDatabase(m, file, name, onChunk, onRead) {
  m.callStr('file_begin', name);
  const gz = await isGzip(file);
  const hint = await sizeHint(file, gz);
  if (hint > 0) m.call('file_size', hint % 2 ** 32, Math.floor(hint / 2 ** 32));
  const sq = await sqlite(await compileSQLite());
  const db = sq.database(hint);
  let read = 0;
  let reader = null;
  try {
    const count = (n) => { read += n; };
    const stream = gz ? gunzip(file.stream(), count) : file.stream().pipeThrough(new TransformStream({
      transform(chunk, ctl) { count(chunk.byteLength); ctl.enqueue(chunk); },
    }));
    reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      db.write(value);
      onRead(read);
    }
  } catch (err) {
    reader?.cancel().catch(() => {});
    db.discard();
    m.callStr('file_error', `${name}: ${describeReadError(err)} after ${read} of ${file.size} bytes (a database is read whole)`);
    m.call('file_end');
    return;
  }
  try {
    db.rows(queries, (b) => {
      if (gz) m.x.file_read(read % 2 ** 32, Math.floor(read / 2 ** 32)); // the ratio guard's input
      if (onChunk(b, read)) throw new StopRows();
    });
  } catch (err) {
    if (err instanceof WasiExit || err instanceof WebAssembly.RuntimeError || err?.fromModule) throw err;
    if (!(err instanceof StopRows)) m.callStr('file_error', err.message);
  }
  m.call('file_end');
}

/** The kept parser pool, resized to n, for a new job (or a new pool). */
function takePool(n, module) {
  if (pool) pool.resize(n);
  else pool = new ParserPool(n, module);
  pool.beginJob();
  return pool;
}

/** Thrown when a job must run again from the start without blocks (a wrong split, a block-mode failure). */
class RestartJob extends Error {}

// Issue 12: blocks for the parser workers. The first HEAD bytes of a file
// (and more, until block_ready says yes) go to the job's instance with feed;
// then pieces of at least BLOCK bytes, cut between two traceEvents elements
// (split.js), go to the parsers and come back encoded, merged into the job's
// instance in file order. Files under HEAD + BLOCK never split.
const HEAD = (4 << 20) + (64 << 10); // block_ready says 0 until more than 4 MiB were fed
const RETRY = 256 << 10; // after block_ready 0: the next boundary this much later
const RETRIES = 16; // then the file is fed whole
const BLOCK = 16 << 20;
const HEAD_FEED = 64 << 10; // bytes per feed of a head piece (as parser.js)
// Bytes past a piece's minimum without an element boundary: the splitter
// then stops holding them (a gzip bomb of spaces, one huge element). It held
// every byte until EOF, 1 GiB of a 1 MB bomb, where the module's ratio guard
// never saw them: minutes and gigabytes instead of the CLI's 64 MiB.
const NO_CUT = 16 << 20;

/**
 * A file's block feeder: onChunk/onEnd for pushFile.
 * @param {{pool: () => ParserPool, block: number, opts: string, badSplit: boolean, inFlight: number, seq: number, blocks: number}} ctx
 *   the job's: the pool (started on first use), block size, begin's JSON, the test hook, the bound on
 *   blocks in flight, the next block number, blocks merged so far
 */
function blockFeeder(m, ctx, feedHead, onDispatch) {
  const s = new Splitter(Math.max(ctx.block, HEAD) + (1 << 20));
  s.min = HEAD;
  let mode = 'head'; // then 'blocks', or 'plain' when the file never said yes
  let tries = 0;
  let bare = false;
  let offset = 0; // decompressed offset of the splitter's first byte
  let next = 0; // next block number to merge
  let pool = null;
  let failure = null;
  const reads = new Map(); // block → compressed bytes read when it was complete

  const mergeReady = () => {
    for (;;) {
      const r = pool.take(next);
      if (!r) return;
      const read = reads.get(next);
      reads.delete(next);
      m.x.file_read(read % 2 ** 32, Math.floor(read / 2 ** 32));
      const e = new Uint8Array(r.enc);
      const tm = performance.now();
      const rc = m.x.block_merge(m.put(e), e.length);
      ctx.mergeMs += performance.now() - tm;
      if (rc === 3) throw new RestartJob(`block ${next - ctx.first}: the split was wrong or a limit needs the sequential parse`);
      if (rc !== 0) throw new RestartJob(`block ${next - ctx.first}: block_merge ${rc}: ${m.result().error ?? ''}`);
      s.recycle(r.buf);
      next++;
      ctx.blocks++;
    }
  };
  const merge = () => {
    if (failure) throw failure;
    try {
      mergeReady();
    } catch (err) {
      failure = err instanceof RestartJob ? err : new RestartJob(`block mode: ${err?.message ?? err}`);
      throw failure;
    }
  };

  // Wait for the next block's result and merge what is there. A merge that
  // failed in pool.onResult took its block's result: waiting for it again
  // would never end, so the failure is thrown first.
  const mergeNext = async () => {
    if (failure) throw failure;
    await pool.wait(next);
    merge();
  };

  const dispatch = async (piece, read) => {
    while (ctx.seq - next >= ctx.inFlight) await mergeNext(); // back-pressure: the reader waits
    if (failure) throw failure;
    const n = piece.length; // before the transfer detaches it
    pool.submit(ctx.seq, piece, ctx.opts, offset, bare);
    reads.set(ctx.seq, read);
    ctx.seq++;
    offset += n;
    onDispatch(n, read);
  };

  const head = (piece, read) => {
    offset += piece.length;
    const stop = feedHead(piece, read);
    s.recycle(piece.buffer);
    return stop;
  };

  return {
    clean: () => mode === 'plain' || (mode === 'head' && s.fill === 0),
    async onChunk(chunk, read) {
      if (mode === 'plain') return feedHead(chunk, read);
      s.push(chunk);
      for (let piece; (piece = s.take());) {
        if (mode === 'blocks') {
          await dispatch(piece, read);
          s.min = ctx.block;
          continue;
        }
        if (head(piece, read)) return true;
        const r = m.x.block_ready();
        if (r === 1 || r === 2) {
          mode = 'blocks';
          bare = r === 2;
          pool = ctx.pool();
          ctx.first ??= ctx.seq;
          next = ctx.seq;
          pool.onResult = () => { try { merge(); } catch { /* the reader sees it */ } };
          s.min = ctx.block;
          if (ctx.badSplit) { s.badOnce = true; ctx.badSplit = false; }
        } else if (++tries >= RETRIES) {
          mode = 'plain'; // not splittable here: feed the rest as it comes
          const rest = s.end();
          if (rest && head(rest, read)) return true;
        } else {
          s.min = RETRY;
        }
      }
      if (s.fill > s.min + NO_CUT) {
        if (mode === 'blocks') throw new RestartJob(`no element boundary within ${NO_CUT >> 20} MiB`);
        mode = 'plain'; // the head: feed what is held, then the rest as it comes
        const rest = s.end();
        if (rest && head(rest, read)) return true;
      }
      return false;
    },
    async onEnd(read) {
      const last = s.end();
      if (mode !== 'blocks') {
        if (last) head(last, read);
        return;
      }
      if (last) await dispatch(last, read);
      while (next < ctx.seq) await mergeNext();
      pool.onResult = null;
    },
  };
}

/**
 * Expected decompressed size: the file's size, or for gzip its ISIZE
 * trailer (size mod 2^32) lifted past 4 GiB wraps at a typical trace
 * compression ratio — the same rule as the CLI (cmd/gputriage/input.go).
 */
async function sizeHint(file, gz) {
  if (!gz) return file.size;
  if (file.size < 18) return 0;
  const t = new DataView(await file.slice(file.size - 4).arrayBuffer());
  let isize = t.getUint32(0, true);
  const wrap = 2 ** 32;
  const k = Math.trunc((file.size * 15 - isize + wrap / 2) / wrap);
  if (k > 0) isize += k * wrap;
  // A forged trailer must not plan gigabytes: deflate expands ≤ 1032×
  // (the module caps the hint as well: analyzer/limits).
  return Math.min(isize, file.size * 1032);
}

async function isGzip(file) {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  return head[0] === 0x1f && head[1] === 0x8b;
}

/** Progress reporter, throttled; `extra` adds job-specific fields. */
function reporter(m, files, total, t0) {
  let last = 0;
  return (p, force) => {
    const now = performance.now();
    if (!force && now - last < PROGRESS_MS) return;
    last = now;
    const secs = Math.max((now - t0) / 1000, 1e-3);
    const rate = p.bytesRead / secs;
    self.postMessage({
      type: 'progress', files, total, ...p,
      mbps: p.rawBytes / 1e6 / secs,
      eta: p.bytesRead > 0 ? (total - p.bytesRead) / rate : NaN,
      memory: m.memory,
    });
  };
}

// A module call that fails (rc 2) must end the job, not count as a read error.
function moduleError(err) {
  if (err && typeof err === 'object') err.fromModule = true;
  return err;
}

async function run(files, opts) {
  const t0 = performance.now();
  try {
    return await runOnce(files, opts, t0, false);
  } catch (err) {
    if (!(err instanceof RestartJob)) throw err;
    // The sequential parse from the start: its result is the reference.
    console.warn(`[gputriage] ${err.message}: running the job again without blocks`);
    const out = await runOnce(files, opts, t0, true);
    out.stats.restarted = true;
    out.stats.restartReason = err.message;
    return out;
  }
}

async function runOnce(files, opts, t0, sequential) {
  const command = await resolveCommand(files, opts);
  const { autoTriage, inflateWorker: iw, parsers: np, blockMiB, badSplit, ...moduleOpts } = opts;
  // Gunzip in a worker of its own (opts.inflateWorker, ?inflate=1): opt-in,
  // since on the 2-core machine we measure on it cost 3-6 s more CPU than
  // it hid on the 1 GB trace (docs/architecture-notes.md).
  const inflateWorker = iw === true && (self.navigator?.hardwareConcurrency ?? 1) > 1;
  moduleOpts.command = command;
  const ti = performance.now();
  const m = await jobInstance();
  const instantiateMs = performance.now() - ti;
  const total = files.reduce((n, f) => n + f.file.size, 0);
  const progress = reporter(m, files.length, total, t0);
  let readBefore = 0; // compressed bytes of finished files
  let raw = 0; // decompressed bytes fed
  let feedMs = 0; // time inside the module, to tell analysis from gunzip/IO
  let sqlMs = 0; // databases: gunzip, copy into SQLite and its queries (not the module)

  // Issue 12: N parser workers (opts.parsers, ?parsers=N; default the
  // core count; 0 or 1: this worker alone) for files big enough to split.
  const nParsers = Math.floor(np ?? self.navigator?.hardwareConcurrency ?? 1);
  const optsJSON = JSON.stringify(moduleOpts);
  const ctx = {
    block: blockMiB > 0 ? Math.round(blockMiB * 2 ** 20) : BLOCK,
    opts: optsJSON,
    badSplit: !!badSplit,
    n: nParsers,
    inFlight: 2 * nParsers,
    seq: 0,
    blocks: 0,
    mergeMs: 0,
    first: undefined,
    poolObj: null,
    pool: () => (ctx.poolObj ??= takePool(ctx.n, modulePromiseValue)),
  };
  const modulePromiseValue = await getModule();
  const splits = !sequential && nParsers > 1 && typeof Worker === 'function' && typeof m.x.block_ready === 'function';

  // The parsers start with the job (their Go runtimes start while the head
  // is fed) when a file looks big enough to split; no more of them than the
  // biggest file has blocks.
  if (splits) {
    let blocks = 0;
    for (const { file } of files) {
      const hint = await sizeHint(file, await isGzip(file));
      if (hint >= HEAD + ctx.block) blocks = Math.max(blocks, Math.ceil((hint - HEAD) / ctx.block));
    }
    if (blocks) {
      ctx.n = Math.min(nParsers, blocks);
      ctx.inFlight = 2 * ctx.n;
      ctx.pool();
    }
  }

  m.callStr('begin', optsJSON);
  // A folder read into one store plans its records once, for all the
  // files (as the CLI does: Job.ExpectBytes), instead of growing them per file.
  let expectBytes = 0;
  if (files.length > 1) {
    for (const { file } of files) expectBytes += await sizeHint(file, await isGzip(file));
    if (expectBytes > 0) m.call('expect_bytes', expectBytes % 2 ** 32, Math.floor(expectBytes / 2 ** 32));
  }
  try {
    for (let i = 0; i < files.length; i++) {
      const { file, name } = files[i];
      const at = (read) => ({ file: name, fileIndex: i, bytesRead: readBefore + read, rawBytes: raw });
      const feedChunk = (chunk, read) => {
        const tf = performance.now();
        let stop;
        try { stop = m.feed(chunk); } catch (err) { throw moduleError(err); }
        feedMs += performance.now() - tf;
        raw += chunk.length;
        progress(at(read), false);
        return stop;
      };
      const feedHead = (piece, read) => {
        for (let off = 0; off < piece.length; off += HEAD_FEED) {
          if (feedChunk(piece.subarray(off, Math.min(off + HEAD_FEED, piece.length)), read)) return true;
        }
        return false;
      };
      const split = splits
        ? (hint) => (hint >= HEAD + ctx.block ? blockFeeder(m, ctx, feedHead, (n, read) => { raw += n; progress(at(read), false); }) : null)
        : null;
      if (await isDatabase(file)) {
        const ts = performance.now(), fed = feedMs;
        await pushDatabase(m, file, name, feedChunk, (read) => progress(at(read), false));
        sqlMs += performance.now() - ts - (feedMs - fed); // reading the file into SQLite, the queries
      } else await pushFile(m, file, name, feedChunk, { inflateWorker, split });
      readBefore += file.size;
      progress(at(0), true);
    }
    if (ctx.poolObj) ctx.poolObj.onResult = null; // every block merged: the pool stays for the next job
  } catch (err) {
    // Blocks may still be on their way: these parsers go, new ones start when idle.
    if (ctx.poolObj) { ctx.poolObj.terminate(); if (pool === ctx.poolObj) pool = null; }
    throw err;
  }
  const tf = performance.now();
  const rc = m.x.finish();
  const result = m.result();
  const stats = {
    command,
    exitCode: rc,
    seconds: (performance.now() - t0) / 1000,
    finishSeconds: (performance.now() - tf) / 1000,
    feedSeconds: feedMs / 1000,
    sqlSeconds: sqlMs / 1000,
    bytes: total,
    rawBytes: raw,
    mbps: raw / 1e6 / ((performance.now() - t0) / 1000),
    memory: m.memory,
    expectBytes,
    instantiateMs,
    inflateWorker,
    parsers: ctx.blocks ? ctx.n : 1,
    blocks: ctx.blocks,
    restarted: false,
    parserMemory: ctx.poolObj?.parserMemory ?? 0,
    parseSeconds: (ctx.poolObj?.parseMs ?? 0) / 1000,
    mergeSeconds: ctx.mergeMs / 1000,
  };
  return { result, stats, instance: m };
}

/** The page's "auto": triage when two or more of the files are traces,
 *  unless they are the rank files of one distributed job (distinct
 *  distributedInfo ranks): those get the breakdown with its per-rank table. */
async function resolveCommand(files, opts) {
  const cmd = opts.command || 'auto';
  if (cmd !== 'auto' || !opts.autoTriage || files.length < 2) return cmd;
  const ranks = [];
  let traces = 0;
  for (const f of files) {
    const s = await sniffTrace(f.file);
    if (!s.trace) continue;
    traces++;
    ranks.push(s.rank);
  }
  if (traces < 2) return cmd;
  const distinctRanks = ranks.every((r) => r != null) && new Set(ranks).size === ranks.length;
  return distinctRanks ? cmd : 'triage';
}

/** Is this a JSON document with traceEvents near its start (a Kineto trace,
 *  not a log or a JSON side document), and which distributed rank wrote it?
 *  Reads at most the first 64 KiB (gunzipped). */
async function sniffTrace(file) {
  let reader;
  const parts = [];
  let n = 0;
  try {
    let stream = file.slice(0, 4 << 20).stream();
    if (await isGzip(file)) stream = gunzip(stream);
    reader = stream.getReader();
    while (n < SNIFF_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      n += value.length;
    }
  } catch {
    // the sliced gzip stream ends early: judged by what was read
  } finally {
    reader?.cancel().catch(() => {});
  }
  const text = dec.decode(concat(parts, n).subarray(0, SNIFF_BYTES)).replace(/^\ufeff/, '').trimStart();
  const trace = (text[0] === '{' && text.includes('"traceEvents"')) || (/^\[\s*\{/.test(text) && text.includes('"ph"'));
  const d = /"distributedInfo"\s*:\s*\{[^}]*?"rank"\s*:\s*(\d+)[^}]*?"world_size"\s*:\s*(\d+)/.exec(text);
  return { trace, rank: d && Number(d[2]) > 1 ? Number(d[1]) : null };
}

function concat(parts, n) {
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/**
 * perfetto-fix: pass 1 pushes the file to plan the lane moves, pass 2 pushes
 * it again under the same name and drains the rewritten trace with
 * take_output after every feed and once after finish. The output goes into
 * a Blob (built in parts, so the browser may keep it out of the heap), or
 * through CompressionStream('gzip') when asked and available.
 */
async function fix(file, name, gzip) {
  const m = await jobInstance();
  const total = file.size * 2;
  const t0 = performance.now();
  const progress = reporter(m, 1, total, t0);
  const useGzip = gzip && typeof CompressionStream === 'function';
  const sink = useGzip ? gzipSink() : blobSink();
  let raw = 0;
  let outBytes = 0;
  const drain = async () => {
    const b = m.takeOutput();
    if (b) { outBytes += b.length; await sink.write(b); }
  };

  m.callStr('begin', JSON.stringify({ command: 'perfetto-fix' }));
  for (const pass of [1, 2]) {
    const before = (pass - 1) * file.size;
    const at = (read) => ({ file: name, fileIndex: 0, pass, passes: 2, bytesRead: before + read, rawBytes: raw, outBytes });
    await pushFile(m, file, name, async (chunk, read) => {
      try { m.feed(chunk); } catch (err) { throw moduleError(err); }
      raw += chunk.length;
      if (pass === 2) await drain();
      progress(at(read), false);
    });
    progress(at(file.size), true);
  }
  const rc = m.x.finish();
  await drain();
  const result = m.result();
  const blob = await sink.close();
  if (rc === 2 || result.error) throw new Error(result.error || 'perfetto-fix failed');
  return {
    blob,
    name: `perfetto_fixed_trace.json${useGzip ? '.gz' : ''}`,
    result,
    stats: { exitCode: rc, seconds: (performance.now() - t0) / 1000, rawBytes: raw, outBytes, bytes: blob.size, memory: m.memory, gzip: useGzip },
  };
}

function blobSink() {
  const parts = [];
  let pending = [];
  let n = 0;
  return {
    write(b) {
      pending.push(b);
      n += b.length;
      if (n >= BLOB_PART) { parts.push(new Blob(pending)); pending = []; n = 0; }
    },
    close() {
      parts.push(new Blob(pending));
      return new Blob(parts, { type: 'application/json' });
    },
  };
}

function gzipSink() {
  const cs = new CompressionStream('gzip');
  const writer = cs.writable.getWriter();
  const blob = new Response(cs.readable).blob();
  return {
    async write(b) {
      await writer.ready;
      writer.write(b).catch(() => {});
    },
    async close() {
      await writer.close();
      return new Blob([await blob], { type: 'application/gzip' });
    },
  };
}

function describeReadError(err) {
  const m = err?.message ?? String(err);
  // DecompressionStream throws a bare TypeError on a truncated or corrupt stream.
  if (err?.name === 'TypeError') return `gzip stream is truncated or corrupt (${m})`;
  if (err?.name === 'NotReadableError') return `the file could not be read (changed or removed?) (${m})`;
  return m;
}
