// jsbridge reads the module's i32 pointers and lengths as unsigned (node):
// past 2 GiB of linear memory a signed read is a negative offset ("Start
// offset -1826095104 is outside the bounds", issue 24).
//   node site/test/pointers.mjs
import assert from 'node:assert/strict';
import { Instance } from '../../jsbridge/instance.js';
import { wasi } from '../../jsbridge/wasi.js';

const PAGE = 65536;
// 2 GiB + 2 pages, reserved lazily: only the pages touched are committed.
const memory = new WebAssembly.Memory({ initial: 32768 + 2, maximum: 32768 + 2 });
const high = 2 ** 31 + 16; // an address past 2 GiB
const asI32 = (u) => u | 0; // what a wasm export returning i32 gives JS
assert.ok(asI32(high) < 0);

const json = new TextEncoder().encode('{"ok":true}');
let stored = 0;
const x = {
  memory,
  alloc: () => asI32(high),
  result_ptr: () => asI32(high),
  result_len: () => stored,
  take_output: () => stored,
  output_ptr: () => asI32(high),
  feed: () => 0,
};
const inst = new Instance(x);
inst.put(json);
stored = json.length;
assert.deepEqual(inst.result(), { ok: true });
assert.deepEqual([...inst.resultBytes()], [...json]);
assert.deepEqual([...inst.takeOutput()], [...json]);

// The WASI shim: fd_write's iovec and count pointers past 2 GiB.
const te = new TextEncoder();
const section = (id, body) => [id, body.length, ...body];
const name = (s) => [s.length, ...te.encode(s)];
const mod = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0,
  ...section(1, [1, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f]), // (i32 ×4) → i32
  ...section(2, [1, ...name('wasi_snapshot_preview1'), ...name('fd_write'), 0, 0])]));
const lines = [];
const shim = wasi(mod, { stderr: (l) => lines.push(l) });
shim.bind(memory);
const dv = new DataView(memory.buffer);
const iov = high + 64, text = high + 128, nw = high + 256;
new Uint8Array(memory.buffer, text, 3).set([104, 105, 10]); // "hi\n"
dv.setUint32(iov, text, true);
dv.setUint32(iov + 4, 3, true);
assert.equal(shim.imports.wasi_snapshot_preview1.fd_write(2, asI32(iov), 1, asI32(nw)), 0);
assert.deepEqual(lines, ['hi']);
assert.equal(dv.getUint32(nw, true), 3);
console.log('pointers: ok (past 2 GiB, unsigned)');
