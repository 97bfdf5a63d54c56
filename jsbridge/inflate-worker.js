// Gunzip in a worker of its own, pipelined with the parser (issue 12): when
// asked to (opts.inflateWorker, ?inflate=1), the analysis worker starts it for
// each gzip File, so inflating the next chunks runs on another core while the
// module parses the current ones. On the 2-core machine we measure on it did
// not pay (docs/architecture-notes.md), so it is off by default. The
// decompressed bytes come back in 64 KiB transferred buffers (1 MiB ones
// made feed() ~8 % slower: the parse then reads bytes no longer in cache), at
// most CREDIT of them in flight, so memory stays bounded whatever the file's
// size.
//
// The worker's code is the function below, started from a Blob URL (both
// builds allow blob: workers), so no build step knows about this file.
//
// Protocol (analysis worker → inflate worker):
//   {file}                 start: stream, gunzip, post chunks
//   {type:'ack'}           one chunk was consumed: send another
// (inflate worker → analysis worker):
//   {type:'chunk', buf, read}            decompressed bytes (buf transferred);
//                                        read = compressed bytes read so far
//   {type:'end', read}
//   {type:'error', name, message, read}  the stream failed (name as thrown:
//                                        TypeError for damaged gzip)

/* eslint-disable no-restricted-globals */
function inflateMain() {
  const BATCH = 64 << 10;
  const SLICE = 16 << 10; // as inflate.js
  const CREDIT = 32;
  let credit = CREDIT;
  let wake = null;
  self.onmessage = async (ev) => {
    const msg = ev.data;
    if (msg.type === 'ack') {
      credit++;
      if (wake) { const w = wake; wake = null; w(); }
      return;
    }
    let read = 0;
    let buf = new Uint8Array(BATCH);
    let n = 0;
    const flush = async () => {
      if (!n) return;
      while (credit <= 0) await new Promise((r) => { wake = r; });
      credit--;
      const out = n === buf.length ? buf : buf.slice(0, n);
      self.postMessage({ type: 'chunk', buf: out, read }, [out.buffer]);
      buf = new Uint8Array(BATCH);
      n = 0;
    };
    try {
      // inflate.js's sliced(), inlined (this function is the worker's whole
      // source): pieces of SLICE compressed bytes, pulled on demand, so one
      // big chunk of a gzip bomb is not inflated whole, and read counts
      // what the inflater was really handed.
      const src = msg.file.stream().getReader();
      let cur = null;
      let off = 0;
      const counted = new ReadableStream({
        async pull(ctl) {
          while (!cur || off >= cur.length) {
            const { done, value } = await src.read();
            if (done) { ctl.close(); return; }
            cur = value;
            off = 0;
          }
          const piece = cur.subarray(off, off + SLICE);
          off += piece.length;
          read += piece.length;
          ctl.enqueue(piece);
        },
        cancel(reason) { return src.cancel(reason); },
      }, { highWaterMark: 0 });
      const reader = counted.pipeThrough(new DecompressionStream('gzip')).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        let off = 0;
        while (off < value.length) {
          const k = Math.min(value.length - off, buf.length - n);
          buf.set(value.subarray(off, off + k), n);
          n += k;
          off += k;
          if (n === buf.length) await flush();
        }
      }
      await flush();
      self.postMessage({ type: 'end', read });
    } catch (err) {
      // What was decompressed before the failure still reaches the module.
      try { await flush(); } catch { /* nothing */ }
      self.postMessage({ type: 'error', name: err?.name ?? 'Error', message: err?.message ?? String(err), read });
    }
  };
}

let url = null;

/**
 * Gunzip `file` in a worker of its own. Returns a reader with the
 * ReadableStreamDefaultReader shape ({done, value}), plus `read()`'s
 * companion `compressed()` (compressed bytes read when the last chunk was
 * cut) and `cancel()`. A failure rethrows with the stream error's name, so
 * callers treat it exactly as DecompressionStream's own.
 */
export function inflateInWorker(file) {
  url ??= URL.createObjectURL(new Blob([`(${inflateMain.toString()})()`], { type: 'text/javascript' }));
  const w = new Worker(url);
  const queue = [];
  let waiting = null;
  let compressed = 0;
  const push = (m) => {
    if (waiting) { const r = waiting; waiting = null; r(m); } else queue.push(m);
  };
  w.onmessage = (ev) => push(ev.data);
  w.onerror = (ev) => { ev.preventDefault?.(); push({ type: 'error', name: 'Error', message: ev.message || 'the gunzip worker failed', read: compressed }); };
  w.postMessage({ file });
  const next = () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => { waiting = r; }));
  let ended = false;
  return {
    async read() {
      if (ended) return { done: true, value: undefined };
      const m = await next();
      compressed = m.read ?? compressed;
      if (m.type === 'chunk') {
        w.postMessage({ type: 'ack' });
        return { done: false, value: m.buf };
      }
      ended = true;
      w.terminate();
      if (m.type === 'end') return { done: true, value: undefined };
      const err = new Error(m.message);
      err.name = m.name;
      throw err;
    },
    compressed: () => compressed,
    cancel() {
      ended = true;
      w.terminate();
      return Promise.resolve();
    },
  };
}
