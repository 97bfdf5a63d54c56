// Served build: worker.js is a sibling of app.js. currentScript is only set
// while the bundle first runs, so capture the base then.
const base = document.currentScript?.src ?? location.href;

/**
 * @param {WebAssembly.Module|null} [compiled] the module, once one worker compiled it
 * @param {{waitForModule?: boolean}} [opts] waitForModule: a worker that gets the compiled module later
 */
export function createWorker(compiled, { waitForModule = false } = {}) {
  return new Worker(new URL('worker.js', base), compiled || waitForModule ? { name: 'compiled' } : undefined);
}
