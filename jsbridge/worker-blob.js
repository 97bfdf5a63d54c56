// file:// build: a Worker cannot load a file:// script, so the worker's
// bundled source (with the module inlined) is started from a Blob URL.
import source from 'gputriage-worker-source';

let url;
export function createWorker() {
  url ??= URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  return new Worker(url);
}
