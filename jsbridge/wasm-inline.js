// file:// build: fetch() of a sibling file is blocked there, so the module
// travels in the page, gzipped and base64-encoded, as a non-executed
// <script type="application/wasm+gzip+base64"> (a quarter of the raw module's
// size, so the HTML parser is through it sooner); the page posts that text to
// this worker (worker-blob.js). Here it is decoded (natively where the browser
// has Uint8Array.fromBase64), gunzipped and compiled as one stream.
let gotBase64;
const base64 = new Promise((resolve) => { gotBase64 = resolve; });
self.addEventListener('message', (ev) => {
  if (ev.data?.type === 'wasm-base64') gotBase64(ev.data.text);
});

function decode(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** @param {object} phases filled with waitMs (for the page's text) and decodeMs */
export async function compileModule(phases = {}) {
  const tw = performance.now();
  const text = await base64;
  const t0 = performance.now();
  phases.waitMs = t0 - tw;
  const gz = decode(text);
  phases.decodeMs = performance.now() - t0;
  const wasm = () => new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip')),
    { headers: { 'Content-Type': 'application/wasm' } });
  if (WebAssembly.compileStreaming) return WebAssembly.compileStreaming(wasm());
  return WebAssembly.compile(await wasm().arrayBuffer());
}
