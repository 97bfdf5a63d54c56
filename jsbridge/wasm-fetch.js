// Served build: the module sits next to worker.js. compileStreaming compiles
// while downloading but rejects (TypeError) unless the server says
// Content-Type: application/wasm; then fall back to compile(arrayBuffer).
export async function compileModule(phases = {}) {
  const url = new URL('gputriage.wasm', self.location.href);
  const get = async () => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
    return res;
  };
  if (WebAssembly.compileStreaming) {
    try {
      return await WebAssembly.compileStreaming(get());
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
    }
  }
  return WebAssembly.compile(await (await get()).arrayBuffer());
}
