// file:// build: a Worker cannot load a file:// script, so the worker's
// bundled source is started from a Blob URL, and the module's base64 (in the
// page after this script, see wasm-inline.js) is posted to it once the parser
// has reached it. A worker spawned after the module compiled gets the
// compiled module instead (client.js).
import source from 'gputriage-worker-source';

const ID = 'gputriage-wasm';
let url;
let text = null;

/** @param {WebAssembly.Module|null} [compiled] the module, once one worker compiled it */
export function createWorker(compiled) {
  url ??= URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const w = new Worker(url);
  if (compiled) return w;
  const send = () => {
    if (text == null) {
      const el = document.getElementById(ID);
      text = el ? el.textContent : '';
      el?.remove();
    }
    w.postMessage({ type: 'wasm-base64', text });
  };
  if (text != null || document.readyState !== 'loading') send();
  else document.addEventListener('DOMContentLoaded', send, { once: true });
  return w;
}
