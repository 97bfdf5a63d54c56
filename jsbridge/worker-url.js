// Served build: worker.js is a sibling of app.js. currentScript is only set
// while the bundle first runs, so capture the base then.
const base = document.currentScript?.src ?? location.href;

export function createWorker() {
  return new Worker(new URL('worker.js', base));
}
