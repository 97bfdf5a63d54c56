// file:// build: fetch() of a sibling file is blocked there, so the module is
// inlined (esbuild's binary loader: base64 in the bundle, decoded once).
import bytes from 'gputriage-wasm-bytes';

export function compileModule() {
  return WebAssembly.compile(bytes);
}
