// file:// build: fetch() of a sibling file is blocked there, so the module
// travels in the page, gzipped and base64-encoded, in chunks that the page
// posts here as the HTML parser reaches them (worker-blob.js). Each chunk is
// decoded (natively where the browser has Uint8Array.fromBase64) and pushed
// into one stream: gunzip, then WebAssembly.compileStreaming, which compiles
// functions while later chunks are still on their way.
let ctl;
const gz = new ReadableStream({ start(c) { ctl = c; } });
const clock = { first: null, last: null, decodeMs: 0, bytes: 0 };
let cut = false;

self.addEventListener('message', (ev) => {
  const m = ev.data;
  if (m?.type !== 'wasm-chunk' || clock.done) return;
  const now = performance.now();
  clock.first ??= now;
  if (m.text) {
    const b = decode(m.text);
    clock.bytes += b.length;
    ctl.enqueue(b);
  }
  clock.decodeMs += performance.now() - now;
  if (m.last) {
    clock.last = performance.now();
    clock.done = true;
    cut = !!m.cut;
    ctl.close();
  }
});

function decode(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// Page-clock ms (since the page's navigation) of a worker timestamp.
const pageMs = (t) => (t == null ? null : t + performance.timeOrigin);

/**
 * @param {object} phases filled with waitMs (worker start → first chunk), decodeMs (base64, summed),
 *   firstChunkAt / lastChunkAt (epoch ms: the page turns them into its own clock), gzBytes
 */
export async function compileModule(phases = {}) {
  const t0 = performance.now();
  const wasm = gz.pipeThrough(new DecompressionStream('gzip'));
  const res = () => new Response(wasm, { headers: { 'Content-Type': 'application/wasm' } });
  let module;
  try {
    module = WebAssembly.compileStreaming ? await WebAssembly.compileStreaming(res()) : await WebAssembly.compile(await res().arrayBuffer());
  } catch (err) {
    if (cut) throw new Error('the page was cut short inside the module (save the page whole)');
    throw err;
  }
  Object.assign(phases, {
    waitMs: (clock.first ?? t0) - t0,
    decodeMs: clock.decodeMs,
    firstChunkAt: pageMs(clock.first),
    lastChunkAt: pageMs(clock.last),
    gzBytes: clock.bytes,
  });
  return module;
}
