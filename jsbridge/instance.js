// One instance of gputriage.wasm with the push ABI's conventions around its
// exports (docs/abi.md): the job's worker (worker.js) and the parser
// workers (parser.js) both drive the module through it.
import { wasi } from './wasi.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Instantiate a compiled module and start its Go runtime (_initialize).
 * @param {WebAssembly.Module} module
 * @param {(line: string) => void} stderr the module's stderr, line by line
 */
export async function instantiateModule(module, stderr) {
  const shim = wasi(module, { stderr });
  const instance = await WebAssembly.instantiate(module, shim.imports);
  const x = instance.exports;
  shim.bind(x.memory);
  x._initialize?.();
  return new Instance(x);
}

/** The module's exports with the push ABI's conventions around them. */
export class Instance {
  constructor(x) { this.x = x; }

  get memory() { return this.x.memory.buffer.byteLength; }

  // Write bytes at alloc(n); views are rebuilt after every call since
  // memory growth detaches the old one. Pointers and lengths come back from
  // the module as wasm i32, which JS reads signed: `>>> 0` makes them
  // unsigned, or memory past 2 GiB is a negative offset ("Start offset
  // -1826095104 is outside the bounds").
  put(bytes) {
    const ptr = this.x.alloc(bytes.length) >>> 0;
    new Uint8Array(this.x.memory.buffer, ptr, bytes.length).set(bytes);
    return ptr;
  }

  call(name, ...args) {
    const rc = this.x[name](...args);
    if (rc === 2) throw new Error(this.result().error || `${name} failed`);
    return rc;
  }

  callStr(name, s) {
    const b = enc.encode(s);
    return this.call(name, this.put(b), b.length);
  }

  /** true when the module takes no more of this file (a limit was reached). */
  feed(chunk) { return this.call('feed', this.put(chunk), chunk.length) === 1; }

  /** Bytes a streaming command wrote since the last call (a copy), or null. */
  takeOutput() {
    const n = this.x.take_output() >>> 0;
    if (!n) return null;
    return new Uint8Array(this.x.memory.buffer, this.x.output_ptr() >>> 0, n).slice();
  }

  /** The result buffer's bytes (a copy): block_end's encoded block. */
  resultBytes() {
    return new Uint8Array(this.x.memory.buffer, this.x.result_ptr() >>> 0, this.x.result_len() >>> 0).slice();
  }

  result() {
    const n = this.x.result_len() >>> 0;
    if (!n) return { error: 'the module returned no result' };
    return JSON.parse(dec.decode(new Uint8Array(this.x.memory.buffer, this.x.result_ptr() >>> 0, n)));
  }
}
