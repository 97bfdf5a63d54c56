// Per-kernel intervals for the zoomable timeline: the module's spans export
// (analyzer/report/spans.go), which the worker hands over after the result.
// Views over the one transferred buffer, no copies: 20 bytes per kernel.
// Drawing at any zoom walks only the kernels in view (binary search by
// start), so a frame costs O(kernels in view), never more than one pass.

const MAGIC = 'GTS1';

/**
 * @param {ArrayBuffer} buffer
 * @returns {null|{files: {file: string, lanes: Lane[]}[], names: string[], categories: string[]}}
 *   Lane: {device, stream, first, count, maxDur}; start/dur/name: the columns
 */
export function decodeSpans(buffer) {
  if (!buffer || buffer.byteLength < 8) return null;
  const b = new Uint8Array(buffer);
  if (String.fromCharCode(b[0], b[1], b[2], b[3]) !== MAGIC) return null;
  const hl = new DataView(buffer).getUint32(4, true);
  const head = JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + hl)));
  let pre = 8 + hl;
  pre += (8 - (pre % 8)) % 8;
  const n = (buffer.byteLength - pre) / 20;
  const start = new Float64Array(buffer, pre, n);
  const dur = new Float64Array(buffer, pre + 8 * n, n);
  const name = new Uint32Array(buffer, pre + 16 * n, n);
  for (const f of head.files) {
    for (const l of f.lanes) {
      // The longest kernel bounds how far before a view's start a kernel
      // reaching into it can begin.
      let m = 0;
      for (let i = l.first; i < l.first + l.count; i++) if (dur[i] > m) m = dur[i];
      l.maxDur = m;
    }
  }
  return { ...head, start, dur, name, n };
}

/** First index in [lo, hi) whose start is ≥ t. */
export function lowerBound(start, lo, hi, t) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (start[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index range of a lane's kernels that may show in [t0, t1]. */
export function inView(sp, lane, t0, t1) {
  const end = lane.first + lane.count;
  return [lowerBound(sp.start, lane.first, end, t0 - lane.maxDur), lowerBound(sp.start, lane.first, end, t1)];
}

/**
 * Busy fraction per pixel of the lanes' kernels over [t0, t1] drawn px wide
 * (added into acc, capped at 1 per lane when several lanes share a row).
 * @returns {{seen: number, thin: number}} kernels that touched the view,
 *   and how many of them are narrower than a pixel
 */
export function busyPerPixel(sp, lanes, t0, t1, px, acc) {
  const scale = px / (t1 - t0);
  const one = new Float32Array(px);
  let seen = 0, thin = 0;
  for (const lane of lanes) {
    const [i0, i1] = inView(sp, lane, t0, t1);
    if (lanes.length > 1) one.fill(0);
    const into = lanes.length > 1 ? one : acc;
    for (let i = i0; i < i1; i++) {
      const s = (sp.start[i] - t0) * scale, e = s + sp.dur[i] * scale;
      if (e <= 0 || s >= px) continue;
      seen++;
      if (e - s < 1) thin++;
      const a = Math.max(0, s), z = Math.min(px, e);
      const pa = Math.floor(a), pz = Math.floor(z);
      if (pa === pz) { into[pa] += z - a; continue; }
      into[pa] += pa + 1 - a;
      for (let p = pa + 1; p < pz; p++) into[p] += 1;
      if (pz < px) into[pz] += z - pz;
    }
    if (into !== acc) for (let p = 0; p < px; p++) acc[p] += Math.min(1, one[p]);
  }
  return { seen, thin };
}

/** The kernel of the lanes at time t (µs), within slack µs, or -1. */
export function kernelAt(sp, lanes, t, slack) {
  let best = -1, bestD = Infinity;
  for (const lane of lanes) {
    const [i0, i1] = inView(sp, lane, t - slack, t + slack);
    for (let i = i0; i < i1; i++) {
      const s = sp.start[i], e = s + sp.dur[i];
      const d = t < s ? s - t : t > e ? t - e : 0;
      if (d <= slack && (d < bestD || (d === bestD && sp.dur[i] < sp.dur[best]))) { best = i; bestD = d; }
    }
  }
  return best;
}
