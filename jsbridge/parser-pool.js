// The parser workers (issue 12): nested workers of the job's worker, each
// with its own instance of the same compiled module, started from a Blob URL
// of parser.js's bundle (no request in either build; the job worker's
// termination — a cancel — ends them too). The job's worker keeps them
// between jobs. Blocks go to the least loaded parser; results come back in
// any order and are taken in block order (take, wait).
import source from 'gputriage-parser-source';

let url = null;

export class ParserPool {
  /** @param {number} n @param {WebAssembly.Module} module */
  constructor(n, module) {
    url ??= URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    this.module = module;
    this.workers = [];
    this.beginJob();
    this.resize(n);
  }

  /** Forget the last job's state (its blocks were all merged). */
  beginJob() {
    this.results = new Map(); // seq → message
    this.waiters = new Map(); // seq → resolve
    this.failure = null;
    this.onResult = null; // called on every arrival (the job merges eagerly)
    this.parserMemory = 0;
    this.parseMs = 0;
    for (const p of this.workers) p.load = 0;
  }

  /** n parsers: more are started, extra ones end. */
  resize(n) {
    while (this.workers.length > n) this.workers.pop().w.terminate();
    while (this.workers.length < n) {
      const w = new Worker(url, { name: `parser-${this.workers.length}` });
      const p = { w, load: 0 };
      w.onmessage = (ev) => this.#arrive(p, ev.data);
      w.onerror = (ev) => { ev.preventDefault?.(); this.#arrive(p, { type: 'error', seq: -1, message: ev.message || 'a parser worker failed' }); };
      w.postMessage({ type: 'module', module: this.module });
      this.workers.push(p);
    }
  }

  get size() { return this.workers.length; }

  /** Parse piece (its ArrayBuffer is transferred) as block seq. */
  submit(seq, piece, opts, base, bare) {
    let p = this.workers[0];
    for (const q of this.workers) if (q.load < p.load) p = q;
    p.load++;
    p.w.postMessage({ type: 'block', seq, opts, base, bare, buf: piece.buffer, len: piece.length }, [piece.buffer]);
  }

  #arrive(p, m) {
    if (m.seq >= 0) p.load--;
    if (m.type === 'error') {
      this.failure ??= new Error(`parser: ${m.message}`);
      for (const r of this.waiters.values()) r();
      this.waiters.clear();
    } else {
      this.parserMemory = Math.max(this.parserMemory, m.memory);
      this.parseMs += m.ms;
      this.results.set(m.seq, m);
      const r = this.waiters.get(m.seq);
      if (r) { this.waiters.delete(m.seq); r(); }
    }
    this.onResult?.();
  }

  /** The result of block seq if it has arrived (taken), else null. Throws the first parser failure. */
  take(seq) {
    if (this.failure) throw this.failure;
    const m = this.results.get(seq);
    if (m) this.results.delete(seq);
    return m ?? null;
  }

  /** Resolves when block seq's result (or a failure) has arrived. */
  wait(seq) {
    if (this.failure || this.results.has(seq)) return Promise.resolve();
    return new Promise((r) => this.waiters.set(seq, r));
  }

  terminate() {
    for (const p of this.workers) p.w.terminate();
    this.workers = [];
  }
}
