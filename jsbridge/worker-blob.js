// file:// build: a Worker cannot load a file:// script, so the worker's
// bundled source is started from a Blob URL. The module follows this script
// in the page as base64 chunks, each followed by a tiny script that calls
// __gputriageWasm (build/site.go): every chunk is posted to the worker the
// moment the HTML parser reaches it, so the worker decodes and compiles
// while the page is still parsing (wasm-inline.js). A worker spawned after
// the module compiled gets the compiled module instead (client.js); one
// spawned before that (a cancel) gets the chunks seen so far, then the rest.
import source from 'gputriage-worker-source';

let url;
const chunks = []; // base64 texts, in page order
let complete = false;
let waiting = null; // the worker that gets the chunks still to come

// Called by the page's hook script after each chunk (a data block).
globalThis.__gputriageWasm = (hook) => {
  // The chunk's data block precedes its hook, but not always directly: an
  // element the page appends to <body> while the parser is still here (the
  // drop's progress, the font warm-up) lands between them. Skipping the
  // chunk then lost it (and the module) silently.
  let el = hook?.previousElementSibling;
  while (el && el.type !== 'application/wasm+gzip+base64') el = el.previousElementSibling;
  if (!el) return;
  const last = el.hasAttribute('data-last');
  chunks.push(el.textContent);
  complete = last;
  el.remove();
  hook.remove();
  waiting?.postMessage({ type: 'wasm-chunk', text: chunks[chunks.length - 1], last, at: performance.timeOrigin + performance.now() });
};

/**
 * @param {WebAssembly.Module|null} [compiled] the module, once one worker compiled it
 * @param {{waitForModule?: boolean}} [opts] waitForModule: a worker that gets the compiled module later
 */
export function createWorker(compiled, { waitForModule = false } = {}) {
  url ??= URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const w = new Worker(url, compiled || waitForModule ? { name: 'compiled' } : undefined);
  if (compiled || waitForModule) return w;
  waiting = w;
  chunks.forEach((text, i) => w.postMessage({ type: 'wasm-chunk', text, last: complete && i === chunks.length - 1, at: performance.timeOrigin + performance.now() }));
  // A page cut short (no last chunk) never completes the module: say so.
  if (!complete) {
    const check = () => { if (!complete && waiting === w) w.postMessage({ type: 'wasm-chunk', text: '', last: true, cut: true }); };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', check, { once: true });
    else check();
  }
  return w;
}
