// Per-kernel intervals for the zoomable timeline: the module's spans export
// (analyzer/report/spans.go), which the worker hands over after the result.
// Views over the one transferred buffer, no copies: 20 bytes per kernel.
// Level of detail: a lane of many kernels also gets a pyramid of busy time
// per bin (buildLevels: 0.4 B per kernel, built in slices), and a view
// holding more kernels than pixels reads it instead of the kernels, so a
// frame costs O(pixels) when zoomed out and O(kernels in view) when in.
import { parseJSON } from './json.js';

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
  const head = parseJSON(new TextDecoder().decode(b.subarray(8, 8 + hl)));
  let pre = 8 + hl;
  pre += (8 - (pre % 8)) % 8;
  const n = (buffer.byteLength - pre) / 20;
  const start = new Float64Array(buffer, pre, n);
  const dur = new Float64Array(buffer, pre + 8 * n, n);
  const name = new Uint32Array(buffer, pre + 16 * n, n);
  return { ...head, start, dur, name, n };
}

const SLICE = 100_000; // kernels per task while building the levels
const DENSE = 8192; // lanes with fewer kernels draw from the kernels alone

/**
 * Per lane: maxDur (the longest kernel bounds how far before a view's start
 * a kernel reaching into it can begin) and, for a lane of DENSE kernels or
 * more, levels: busy µs per bin over [0, file span], the finest with a
 * power of two of bins ≈ count / 8 (≤ 65536), each next level half as many.
 * Yields (await pause()) between slices of SLICE kernels.
 */
export async function buildLevels(sp, pause) {
  let done = 0;
  for (const f of sp.files) {
    let span = 0;
    for (const l of f.lanes) {
      let m = 0;
      for (let i = l.first; i < l.first + l.count; i++) {
        if (sp.dur[i] > m) m = sp.dur[i];
        if (sp.start[i] + sp.dur[i] > span) span = sp.start[i] + sp.dur[i];
        if (++done % SLICE === 0) await pause();
      }
      l.maxDur = m;
    }
    f.span = span;
    for (const l of f.lanes) {
      if (l.count < DENSE || !(span > 0)) continue;
      let nb = 512;
      while (nb < 65536 && nb * 8 < l.count) nb *= 2;
      const fine = new Float32Array(nb), bw = span / nb;
      for (let i = l.first; i < l.first + l.count; i++) {
        const s = sp.start[i], e = s + sp.dur[i];
        let b = Math.min(nb - 1, Math.floor(s / bw));
        for (; b < nb && b * bw < e; b++) fine[b] += Math.min(e, (b + 1) * bw) - Math.max(s, b * bw);
        if (++done % SLICE === 0) await pause();
      }
      const levels = [fine];
      for (let a = fine; a.length > 512;) {
        const c = new Float32Array(a.length / 2);
        for (let b = 0; b < c.length; b++) c[b] = a[2 * b] + a[2 * b + 1];
        levels.push((a = c));
      }
      l.levels = levels;
      l.span = span;
    }
  }
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
    if (lane.levels && i1 - i0 > 4 * px && fromLevels(lane, t0, t1, px, into)) { seen += i1 - i0; thin += i1 - i0; }
    else for (let i = i0; i < i1; i++) {
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

// Busy per pixel from the coarsest level whose bins are no wider than a
// pixel; false when even the finest bins are wider (then the kernels in
// view are few enough to walk).
function fromLevels(lane, t0, t1, px, into) {
  const pw = (t1 - t0) / px;
  let lv = -1;
  for (let k = 0; k < lane.levels.length; k++) if (lane.span / lane.levels[k].length <= pw) lv = k;
  if (lv < 0) return false;
  const a = lane.levels[lv], bw = lane.span / a.length;
  for (let p = 0; p < px; p++) {
    const ta = t0 + p * pw, tb = ta + pw;
    let sum = 0;
    for (let b = Math.max(0, Math.floor(ta / bw)); b < a.length && b * bw < tb; b++) {
      const ov = Math.min(tb, (b + 1) * bw) - Math.max(ta, b * bw);
      if (ov > 0) sum += a[b] * (ov / bw);
    }
    into[p] += sum / pw;
  }
  return true;
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
