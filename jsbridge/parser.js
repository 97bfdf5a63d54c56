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
import { instantiateModule } from './instance.js';

const FEED = 64 << 10; // bytes per feed: bigger ones parse slower (the bytes are no longer in cache; inflate-worker.js)
const enc = new TextEncoder();

let instance = null; // Promise of the Instance

self.onmessage = async (ev) => {
  const m = ev.data;
  if (m.type === 'module') {
    instance = instantiate(m.module);
    instance.catch(() => {}); // reported with the first block
    return;
  }
  if (m.type !== 'block') return;
  try {
    const inst = await instance;
    const t0 = performance.now();
    const out = parse(inst, m);
    self.postMessage({ type: 'block', seq: m.seq, enc: out.buffer, buf: m.buf, ms: performance.now() - t0, memory: inst.memory },
      [out.buffer, m.buf]);
  } catch (err) {
    self.postMessage({ type: 'error', seq: m.seq, message: err?.message ?? String(err) });
  }
};

/** Parse one block; its encoding (a copy). A failing call throws. */
function parse(inst, m) {
  const o = enc.encode(m.opts);
  inst.call('block_begin', inst.put(o), o.length, m.base % 2 ** 32, Math.floor(m.base / 2 ** 32), m.bare ? 1 : 0);
  const bytes = new Uint8Array(m.buf, 0, Math.min(m.len, m.buf.byteLength));
  for (let off = 0; off < bytes.length; off += FEED) {
    // feed true: a limit, the block ends here (the merge decides)
    if (inst.feed(bytes.subarray(off, Math.min(off + FEED, bytes.length)))) break;
  }
  inst.call('block_end');
  return inst.resultBytes();
}

async function instantiate(module) {
  const inst = await instantiateModule(module, (line) => console.warn('[gputriage.wasm parser]', line));
  if (typeof inst.x.block_begin !== 'function') throw new Error('this gputriage.wasm has no block_begin');
  warmUp(inst);
  return inst;
}

// A tiny block first, while the job still feeds its head: V8 compiles wasm
// functions on first call, and the block path (block_begin, the block
// parser, block_end's encoder) is one no warm-up job runs. The compiled
// code is the module's, shared by every worker that has it.
function warmUp(inst) {
  try {
    const ev = [];
    for (let i = 0; i < 30; i++) {
      ev.push(`{"ph":"X","cat":"kernel","name":"k${i % 3}","pid":0,"tid":7,"ts":${1000 + i * 10},"dur":5,"args":{"External id":${i + 1},"correlation":${i + 100},"device":0,"stream":7}},\n`);
    }
    parse(inst, { opts: '{"command":"breakdown"}', base: 1 << 20, bare: false, buf: enc.encode(ev.join('')).buffer, len: Infinity });
  } catch {
    // only a warm-up
  }
}
