// The page's handle on the analysis worker: start a job, hear progress,
// get the result, cancel. Cancel terminates the worker outright (a module
// mid-feed cannot be interrupted politely) and starts a fresh one that reuses
// the already compiled module, so the next job starts at once.
import { createWorker } from 'gputriage-worker';

/**
 * @typedef {{file: string, fileIndex: number, files: number, bytesRead: number,
 *   total: number, rawBytes: number, mbps: number, eta: number, memory: number}} Progress
 * @typedef {{name: string, kind: string, bytes: number, partial: boolean, problem: string}} FileResult
 * @typedef {{name: string, text: string}} Artifact
 * @typedef {{exit_code: number, error?: string, files: FileResult[], artifacts: Artifact[]}} Result
 * @typedef {{exitCode: number, seconds: number, finishSeconds: number, feedSeconds: number, bytes: number,
 *   rawBytes: number, mbps: number, memory: number}} Stats
 * @typedef {{command?: 'auto'|'breakdown'|'triage'|'overlap'|'diagnose', target_arch?: string, stage?: string,
 *   mapping?: string[], formal?: string[], autoTriage?: boolean, model_config?: object}} Options
 *   (autoTriage: with command auto, the worker runs triage when two or more files are traces;
 *   stats.command says what ran; model_config: a model's config.json object, as --model-config)
 * @typedef {{blob: Blob, name: string, result: Result, stats: object}} Fixed
 */

const WARM_ROUNDS = 3;

export class CancelledError extends Error {
  constructor() { super('cancelled'); this.name = 'CancelledError'; }
}

export class Client {
  /** @param {{onReady?: (ms: number, phases?: object) => void, onWarm?: () => void, onError?: (msg: string) => void}} [hooks] */
  constructor(hooks = {}) {
    this.hooks = hooks;
    this.module = null;
    this.job = null;
    this.#spawn();
    // The warm-up worker starts with the page (its script loads now, not
    // after load: the served build fetches worker.js) and waits, idle, for
    // the compiled module (#warmUp).
    try {
      this.warmer = createWorker(null, { waitForModule: true });
    } catch {
      this.warmer = null;
      this.warmedUp = true; // no warm-up; jobs still run
    }
  }

  #spawn() {
    this.worker = createWorker(this.module);
    this.worker.postMessage({ type: 'config', parsers: pipelineOpt().parsers });
    // The warm-up job runs in a worker of its own (#warmUp), never in the
    // way of a job.
    this.worker.postMessage({ type: 'warm-elsewhere' });
    if (this.module) this.worker.postMessage({ type: 'module', module: this.module });
    this.worker.onmessage = (ev) => this.#onMessage(ev.data);
    this.worker.onerror = (ev) => this.#fail(ev.message || 'worker failed to start');
  }

  #onMessage(m) {
    const job = this.job;
    switch (m.type) {
      case 'ready':
        this.module = m.module;
        this.hooks.onReady?.(m.ms, m.phases);
        break;
      case 'warm': // the job's worker has an instance with the Go runtime started
        this.spareReady = true;
        this.#warmUp();
        if (this.warmedUp) this.hooks.onWarm?.();
        break;
      case 'progress':
        job?.onProgress?.(m);
        break;
      case 'result': {
        this.job = null;
        // The timeline's per-kernel intervals follow the result.
        let spansDone;
        const spans = new Promise((r) => { spansDone = r; });
        this.spansDone = spansDone;
        job?.resolve({ result: m.result, stats: m.stats, spans });
        break;
      }
      case 'spans':
        this.spansDone?.(m.buffer ? { buffer: m.buffer, ms: m.ms } : null);
        this.spansDone = null;
        break;
      case 'fixed':
        this.job = null;
        job?.resolve({ blob: m.blob, name: m.name, result: m.result, stats: m.stats });
        break;
      case 'error':
        this.#fail(m.message);
        break;
    }
  }

  // Once, when the job's worker has its spare instance ready (the Go
  // runtime start a first job waits for comes first) and no job has run: a
  // second worker gets the compiled module and runs the warm-up job
  // WARM_ROUNDS times, so the code a job runs is compiled (and its hot parts
  // optimised) in the module both workers share; then it ends. A job started
  // meanwhile does not wait for it: it stops the warm-up, which would only
  // take a core from the job.
  #warmUp() {
    const w = this.warmer;
    if (!w || this.warming) return;
    if (this.job || this.ranJob) { this.#stopWarmUp(); return; } // a job warms the code up itself
    this.warming = true;
    const done = () => {
      if (this.warmer !== w) return;
      this.#stopWarmUp();
      if (this.spareReady) this.hooks.onWarm?.();
    };
    w.onmessage = (ev) => { if (ev.data?.type === 'warm' || ev.data?.type === 'error') done(); };
    w.onerror = done;
    w.postMessage({ type: 'warm-up', module: this.module, rounds: WARM_ROUNDS });
  }

  #stopWarmUp() {
    this.warmer?.terminate();
    this.warmer = null;
    this.warmedUp = true;
  }

  #fail(message) {
    const job = this.job;
    this.job = null;
    if (job) job.reject(new Error(message));
    else this.hooks.onError?.(message);
  }

  /**
   * Analyse files (File objects, or {file, name} to pass a path such as a
   * folder-relative name). Resolves with the module's result and run stats.
   * @param {(File|{file: File, name: string})[]} files
   * @param {Options} [opts]
   * @param {(p: Progress) => void} [onProgress]
   * @returns {Promise<{result: Result, stats: Stats, spans: Promise<null|{buffer: ArrayBuffer, ms: number}>}>}
   *   spans: the per-kernel intervals, after the result (null: none)
   */
  start(files, opts = {}, onProgress) {
    this.spansDone?.(null);
    this.spansDone = null;
    if (this.job) this.cancel();
    this.#stopWarmUp();
    this.ranJob = true;
    const list = files.map((f) => (f instanceof Blob ? { file: f, name: f.name } : f));
    return new Promise((resolve, reject) => {
      this.job = { resolve, reject, onProgress };
      // File objects are handles: posting one copies no file data.
      this.worker.postMessage({ type: 'start', files: list, opts: { command: 'auto', ...pipelineOpt(), ...opts } });
    });
  }

  /**
   * perfetto-fix one trace: the worker pushes it twice through the module
   * (plan, then rewrite) and returns the rewritten trace as a Blob named
   * perfetto_fixed_trace.json (.json.gz with gzip, when CompressionStream
   * exists), plus the module's result (perfetto_fix_report.json).
   * Progress carries pass (1 or 2) of passes (2).
   * @param {{file: File, name: string}} f
   * @param {{gzip?: boolean}} [opts]
   * @param {(p: Progress & {pass: number, passes: number}) => void} [onProgress]
   * @returns {Promise<Fixed>}
   */
  fix(f, opts = {}, onProgress) {
    if (this.job) this.cancel();
    this.#stopWarmUp();
    this.ranJob = true;
    return new Promise((resolve, reject) => {
      this.job = { resolve, reject, onProgress };
      this.worker.postMessage({ type: 'fix', file: f.file, name: f.name, gzip: !!opts.gzip });
    });
  }

  get busy() { return this.job !== null; }

  /** Stop the running job now; its promise rejects with CancelledError. */
  cancel() {
    const job = this.job;
    this.job = null;
    this.spansDone?.(null);
    this.spansDone = null;
    this.worker.terminate();
    this.#spawn();
    job?.reject(new CancelledError());
  }
}

// Options from the page's address, for tests and benchmarks:
//   ?inflate=1     gunzip in a worker of its own, pipelined with the parse
//                  (jsbridge/inflate-worker.js); ?inflate=0 (the default): in
//                  the analysis worker itself
//   ?parsers=N     N parser workers for a big trace (issue 12; default: the
//                  core count; 0 or 1: the analysis worker alone)
//   ?block=MiB     block size for the parser workers (default 16)
//   ?badsplit=1    cut the first block at a wrong place once (the job must
//                  notice and run again without blocks)
function pipelineOpt() {
  if (typeof location === 'undefined') return {};
  const q = new URLSearchParams(location.search);
  const o = {};
  const v = q.get('inflate');
  if (v != null) o.inflateWorker = v !== '0';
  const n = q.get('parsers');
  if (n != null && /^\d+$/.test(n)) o.parsers = Number(n);
  const b = Number(q.get('block'));
  if (b > 0) o.blockMiB = b;
  if (q.get('badsplit') === '1') o.badSplit = true;
  return o;
}
