// A parser worker (issue 12): one instance of gputriage.wasm that parses
// blocks of a trace's traceEvents for the job's worker (worker.js), which
// starts it from a Blob URL of this bundle (build/site.go embeds it in
// worker.js as text: both builds, no request) and merges the encoded blocks
// into the job's instance in file order (docs/abi.md "Blocks").
//
// Protocol (job worker → parser):
//   {type:'module', module}                          the compiled module (shared code)
//   {type:'block', seq, opts, base, bare, buf, len}  parse buf[0, len) (buf: a transferred
//                                                    ArrayBuffer), the block at decompressed
//                                                    offset base; opts: begin's JSON text
// (parser → job worker):
//   {type:'block', seq, enc, buf, ms, memory}        the encoded block (enc: transferred
//                                                    ArrayBuffer) and the input buffer back
//   {type:'error', seq, message}
import { wasi } from './wasi.js';

const FEED = 64 << 10; // bytes per feed: bigger ones parse slower (the bytes are no longer in cache; inflate-worker.js)
const enc = new TextEncoder();
const dec = new TextDecoder();

let instance = null; // Promise of the exports

self.onmessage = async (ev) => {
  const m = ev.data;
  if (m.type === 'module') {
    instance = instantiate(m.module);
    instance.catch(() => {}); // reported with the first block
    return;
  }
  if (m.type !== 'block') return;
  try {
    const x = await instance;
    const t0 = performance.now();
    const { rc, out } = parse(x, m);
    if (rc === 2) throw new Error(resultError(x) || 'block failed');
    self.postMessage({ type: 'block', seq: m.seq, enc: out.buffer, buf: m.buf, ms: performance.now() - t0, memory: x.memory.buffer.byteLength },
      [out.buffer, m.buf]);
  } catch (err) {
    self.postMessage({ type: 'error', seq: m.seq, message: err?.message ?? String(err) });
  }
};

function parse(x, m) {
  const o = enc.encode(m.opts);
  let rc = x.block_begin(put(x, o), o.length, m.base % 2 ** 32, Math.floor(m.base / 2 ** 32), m.bare ? 1 : 0);
  if (rc === 2) return { rc };
  const bytes = new Uint8Array(m.buf, 0, Math.min(m.len, m.buf.byteLength));
  for (let off = 0; off < bytes.length; off += FEED) {
    const part = bytes.subarray(off, Math.min(off + FEED, bytes.length));
    rc = x.feed(put(x, part), part.length);
    if (rc === 2) return { rc };
    if (rc === 1) break; // a limit: the block ends here (the merge decides)
  }
  rc = x.block_end();
  if (rc === 2) return { rc };
  const out = new Uint8Array(x.memory.buffer, x.result_ptr(), x.result_len()).slice();
  return { rc, out };
}

function put(x, bytes) {
  const ptr = x.alloc(bytes.length);
  new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

function resultError(x) {
  try {
    const n = x.result_len();
    return n ? JSON.parse(dec.decode(new Uint8Array(x.memory.buffer, x.result_ptr(), n))).error : '';
  } catch {
    return '';
  }
}

async function instantiate(module) {
  const shim = wasi(module, { stderr: (line) => console.warn('[gputriage.wasm parser]', line) });
  const inst = await WebAssembly.instantiate(module, shim.imports);
  const x = inst.exports;
  shim.bind(x.memory);
  x._initialize?.();
  if (typeof x.block_begin !== 'function') throw new Error('this gputriage.wasm has no block_begin');
  warmUp(x);
  return x;
}

// A tiny block first, while the job still feeds its head: V8 compiles wasm
// functions on first call, and the block path (block_begin, the block
// parser, block_end's encoder) is one no warm-up job runs. The compiled
// code is the module's, shared by every worker that has it.
function warmUp(x) {
  try {
    const ev = [];
    for (let i = 0; i < 30; i++) {
      ev.push(`{"ph":"X","cat":"kernel","name":"k${i % 3}","pid":0,"tid":7,"ts":${1000 + i * 10},"dur":5,"args":{"External id":${i + 1},"correlation":${i + 100},"device":0,"stream":7}},\n`);
    }
    parse(x, { opts: '{"command":"breakdown"}', base: 1 << 20, bare: false, buf: enc.encode(ev.join('')).buffer, len: Infinity });
  } catch {
    // only a warm-up
  }
}
