// SQLite's wasm build travels inside the worker's script (gzipped, base64;
// build/site.go), in both builds: the page makes no request after load and
// the file:// page has nothing to fetch. It is decoded and compiled the
// first time a database is dropped.
import b64 from 'gputriage-sqlite-wasm';

let compiled = null;

/** The compiled sqlite3.wasm (once per worker). */
export function compileSQLite() {
  compiled ??= (async () => {
    const gz = Uint8Array.fromBase64 ? Uint8Array.fromBase64(b64) : Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const wasm = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
    return WebAssembly.compile(await new Response(wasm).arrayBuffer());
  })();
  compiled.catch(() => { compiled = null; });
  return compiled;
}
