// Where to cut a decompressed trace into blocks for the parser workers
// (issue 12, docs/abi.md "Blocks"): between two elements of traceEvents.
// The cut is a guess made on bytes alone — the module checks it when it
// merges the block (block_merge 3 = wrong guess: the job runs again without
// blocks), so correctness never depends on it; a good guess only keeps
// restarts rare.
//
// A cut at p: the text before p ends with `}` ws* `,` ws*, p is `{`, and the
// object that starts there has a "ph" key at its own top level within its
// first LOOKAHEAD bytes (an object inside args, `[{...}, {...}]`, has none);
// where the document has newlines, the whitespace around the `,` must hold
// one (never inside a JSON string). The module's own guess, trace.NextCut
// (analyzer/trace/block.go), is the same but for the top-level test.

export const LOOKAHEAD = 512;
const PRETTY_LOOK = 4096; // how far before a cut a newline says the document is pretty-printed

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;

/**
 * First cut at a position ≥ from in buf (a view of the bytes read so far,
 * whose first byte is an element boundary or the file's start).
 * @returns {number} p ≥ 0: cut there; -1: none in [from, buf.length) (look
 *   again from buf.length later); ≤ -2: a candidate at -(r+2) needs bytes
 *   past buf.length to be judged (look again from there once more came).
 */
export function findCut(buf, from, eof = false) {
  const end = buf.length;
  let i = from;
  for (;;) {
    const p = buf.indexOf(0x7b, i); // '{'
    if (p < 0) return -1;
    i = p + 1;
    let j = p - 1;
    let nl = false;
    while (j >= 0 && WS[buf[j]]) nl ||= buf[j--] === 0x0a;
    if (j < 0 || buf[j] !== 0x2c) continue; // ','
    j--;
    while (j >= 0 && WS[buf[j]]) nl ||= buf[j--] === 0x0a;
    if (j < 0 || buf[j] !== 0x7d) continue; // '}'
    // A document with newlines between its elements: the cut's whitespace
    // must hold one too (a JSON string cannot), as trace.NextCut says.
    if (!nl && buf.subarray(Math.max(0, j - PRETTY_LOOK), j).includes(0x0a)) continue;
    const ph = topLevelPh(buf, p, Math.min(end, p + LOOKAHEAD));
    if (ph === 1) return p;
    if (ph === 0 && end < p + LOOKAHEAD && !eof) return -(p + 2);
  }
}

// Does the object starting at buf[p] ('{') have a "ph" key at its top level
// within buf[p, stop)? 1 yes, -1 certainly not (the object ended first, or
// it is not an object of keys), 0 not within these bytes.
function topLevelPh(buf, p, stop) {
  let depth = 0;
  let inStr = false;
  let strStart = 0;
  for (let k = p; k < stop; k++) {
    const c = buf[k];
    if (inStr) {
      if (c === 0x5c) { k++; continue; } // backslash: skip the escaped byte
      if (c !== 0x22) continue;
      inStr = false;
      // "ph" at depth 1 followed by ':' is the key
      if (depth === 1 && k - strStart === 3 && buf[strStart + 1] === 0x70 && buf[strStart + 2] === 0x68) {
        let q = k + 1;
        while (q < stop && WS[buf[q]]) q++;
        if (q === stop) return 0;
        if (buf[q] === 0x3a) return 1;
      }
      continue;
    }
    if (c === 0x22) { inStr = true; strStart = k; continue; }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) { if (--depth === 0) return -1; }
  }
  return 0;
}

/**
 * Accumulates a file's decompressed chunks into pieces: a piece is cut at a
 * findCut position once it holds at least `min` bytes (set by the caller
 * for each piece), the last one at EOF. One copy per byte (chunk → piece);
 * a piece's ArrayBuffer is then transferred to a parser, which hands it
 * back for reuse (recycle).
 */
export class Splitter {
  /** @param {number} cap bytes to allocate per piece buffer (grown when a piece needs more) */
  constructor(cap) {
    this.cap = cap;
    this.free = []; // ArrayBuffers to reuse
    this.buf = null;
    this.fill = 0;
    this.scan = 0; // next candidate position to look at
    this.min = Infinity; // the current piece is cut at the first candidate at or past min
    this.badOnce = false; // test hook: make the next cut wrong (inside an element)
  }

  recycle(ab) { if (ab.byteLength >= this.cap && this.free.length < 4) this.free.push(ab); }

  #alloc(n) {
    const i = this.free.findIndex((ab) => ab.byteLength >= n);
    if (i >= 0) return new Uint8Array(this.free.splice(i, 1)[0]);
    return new Uint8Array(Math.max(n, this.cap));
  }

  /** Appends a chunk (copied). */
  push(chunk) {
    const need = this.fill + chunk.length;
    if (!this.buf || need > this.buf.length) {
      const nb = this.#alloc(Math.max(need, this.buf ? this.buf.length * 2 : 0));
      if (this.buf) {
        nb.set(this.buf.subarray(0, this.fill));
        this.recycle(this.buf.buffer);
      }
      this.buf = nb;
    }
    this.buf.set(chunk, this.fill);
    this.fill = need;
  }

  /** The next complete piece (a view from offset 0 of its own ArrayBuffer), or null. */
  take() {
    if (this.fill < this.min) return null;
    const view = this.buf.subarray(0, this.fill);
    const r = findCut(view, Math.max(this.scan, this.min));
    if (r === -1) { this.scan = this.fill; return null; }
    if (r <= -2) { this.scan = -(r + 2); return null; }
    let p = r;
    if (this.badOnce) { this.badOnce = false; p = r + 7; } // inside the element: the merge must refuse it
    const piece = this.buf.subarray(0, p);
    const rest = this.fill - p;
    const nb = this.#alloc(rest);
    nb.set(this.buf.subarray(p, this.fill));
    this.buf = nb;
    this.fill = rest;
    this.scan = 0;
    return piece;
  }

  /** Everything left (at EOF), or null when empty. */
  end() {
    if (!this.fill) return null;
    const piece = this.buf.subarray(0, this.fill);
    this.buf = null;
    this.fill = 0;
    return piece;
  }
}
