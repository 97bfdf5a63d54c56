// The Web Worker that runs gputriage.wasm. The page's main thread never
// touches trace bytes: each File is streamed here, gunzipped by the browser
// (DecompressionStream) and pushed chunk by chunk into module memory through
// the push ABI (docs/abi.md). No whole-file string or ArrayBuffer ever exists.
//
// Protocol (main → worker):
//   {type:'module', module}                 reuse a compiled module (after cancel)
//   {type:'start', files:[{file, name}], opts}
// (worker → main):
//   {type:'ready', module, ms}              compiled; keep it for the next worker
//   {type:'progress', …Progress}            throttled to ~10 Hz
//   {type:'result', result, stats}          result JSON of finish(), parsed
//   {type:'error', message}
import { wasi, WasiExit } from './wasi.js';
import { compileModule } from 'gputriage-wasm';

const PROGRESS_MS = 100;
const enc = new TextEncoder();
const dec = new TextDecoder();

let modulePromise = null;
let stderrTail = [];

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === 'module') {
    modulePromise = Promise.resolve(msg.module);
    return;
  }
  if (msg.type !== 'start') return;
  try {
    const { result, stats } = await run(msg.files, msg.opts ?? {});
    self.postMessage({ type: 'result', result, stats });
  } catch (err) {
    const tail = stderrTail.length ? `\n${stderrTail.join('\n')}` : '';
    self.postMessage({ type: 'error', message: `${err?.message ?? err}${tail}` });
  }
};

function getModule() {
  if (!modulePromise) {
    const t0 = performance.now();
    modulePromise = compileModule().then((module) => {
      self.postMessage({ type: 'ready', module, ms: performance.now() - t0 });
      return module;
    });
  }
  return modulePromise;
}

// Compile eagerly so the first drop does not wait for it.
getModule().catch((err) => self.postMessage({ type: 'error', message: `loading gputriage.wasm: ${err.message}` }));

/** One fresh instance per job: a trapped or exited instance is unusable, and
 *  Go's heap never shrinks, so reuse would only carry garbage forward. */
async function instantiate() {
  const module = await getModule();
  stderrTail = [];
  const shim = wasi(module, {
    stderr(line) {
      stderrTail.push(line);
      if (stderrTail.length > 20) stderrTail.shift();
      console.warn('[gputriage.wasm]', line);
    },
  });
  const instance = await WebAssembly.instantiate(module, shim.imports);
  const x = instance.exports;
  shim.bind(x.memory);
  x._initialize?.();
  return x;
}

async function run(files, opts) {
  const x = await instantiate();
  const mem = () => x.memory.buffer;

  // Write bytes at alloc(n); the view is rebuilt after every call since
  // memory growth detaches the old one.
  const put = (bytes) => {
    const ptr = x.alloc(bytes.length);
    new Uint8Array(mem(), ptr, bytes.length).set(bytes);
    return ptr;
  };
  const call = (name, ...args) => {
    const rc = x[name](...args);
    if (rc === 2) throw new Error(readResult(x).error || `${name} failed`);
    return rc;
  };
  const callStr = (name, s) => {
    const b = enc.encode(s);
    return call(name, put(b), b.length);
  };

  const total = files.reduce((n, f) => n + f.file.size, 0);
  const t0 = performance.now();
  let readBefore = 0; // compressed bytes of finished files
  let raw = 0; // decompressed bytes fed
  let lastPost = 0;
  let feedMs = 0; // time inside the module, to tell analysis from gunzip/IO

  const progress = (i, read, force) => {
    const now = performance.now();
    if (!force && now - lastPost < PROGRESS_MS) return;
    lastPost = now;
    const secs = (now - t0) / 1000;
    const bytesRead = readBefore + read;
    const rate = bytesRead / Math.max(secs, 1e-3);
    self.postMessage({
      type: 'progress',
      file: files[i]?.name ?? '',
      fileIndex: i,
      files: files.length,
      bytesRead,
      total,
      rawBytes: raw,
      mbps: raw / 1e6 / Math.max(secs, 1e-3),
      eta: bytesRead > 0 ? (total - bytesRead) / rate : NaN,
      memory: x.memory.buffer.byteLength,
    });
  };

  callStr('begin', JSON.stringify(opts));
  for (let i = 0; i < files.length; i++) {
    const { file, name } = files[i];
    callStr('file_begin', name);
    let read = 0;
    try {
      const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
      const gz = head[0] === 0x1f && head[1] === 0x8b;
      let stream = file.stream().pipeThrough(new TransformStream({
        transform(chunk, ctl) { read += chunk.byteLength; ctl.enqueue(chunk); },
      }));
      if (gz) stream = stream.pipeThrough(new DecompressionStream('gzip'));
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const tf = performance.now();
        call('feed', put(value), value.length);
        feedMs += performance.now() - tf;
        raw += value.length;
        progress(i, read, false);
      }
    } catch (err) {
      if (err instanceof WasiExit || err instanceof WebAssembly.RuntimeError) throw err;
      // Keep what was pushed; the module flags the file partial.
      callStr('file_error', `${name}: ${describeReadError(err)} after ${read} of ${file.size} bytes`);
    }
    call('file_end');
    readBefore += file.size;
    progress(i, 0, true);
  }
  const tf = performance.now();
  const rc = x.finish();
  const result = readResult(x);
  const stats = {
    exitCode: rc,
    seconds: (performance.now() - t0) / 1000,
    finishSeconds: (performance.now() - tf) / 1000,
    feedSeconds: feedMs / 1000,
    bytes: total,
    rawBytes: raw,
    mbps: raw / 1e6 / ((performance.now() - t0) / 1000),
    memory: x.memory.buffer.byteLength,
  };
  return { result, stats };
}

function describeReadError(err) {
  const m = err?.message ?? String(err);
  // DecompressionStream throws a bare TypeError on a truncated or corrupt stream.
  if (err?.name === 'TypeError') return `gzip stream is truncated or corrupt (${m})`;
  if (err?.name === 'NotReadableError') return `the file could not be read (changed or removed?) (${m})`;
  return m;
}

function readResult(x) {
  const p = x.result_ptr();
  const n = x.result_len();
  if (!n) return { error: 'the module returned no result' };
  return JSON.parse(dec.decode(new Uint8Array(x.memory.buffer, p, n)));
}
