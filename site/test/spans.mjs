// node site/test/spans.mjs — the timeline's level of detail: busy per pixel
// read from the levels equals the kernels' own, at every zoom (spans.js).
import assert from 'node:assert/strict';
import { buildLevels, busyPerPixel } from '../render/spans.js';

// One lane of n kernels, deterministic pseudo-random starts and durations.
const n = 50_000;
const start = new Float64Array(n), dur = new Float64Array(n);
let t = 0;
for (let i = 0; i < n; i++) {
  const j = (i * 2654435761) >>> 0;
  start[i] = t;
  dur[i] = 1 + (j % 30);
  t += dur[i] + (j % 13 === 0 ? 300 : j % 4);
}
const lane = { device: 0, stream: 7, first: 0, count: n };
const sp = { files: [{ file: 'x', lanes: [lane] }], start, dur, name: new Uint32Array(n), names: ['k'], categories: ['gemm'], n };
await buildLevels(sp, async () => {});
assert.ok(lane.levels?.length > 1, 'a dense lane gets levels');
assert.equal(lane.span, start[n - 1] + dur[n - 1], 'span = the last end');
const exact = { ...lane, levels: null };
for (const [t0, t1, px] of [[0, lane.span, 1000], [lane.span * 0.3, lane.span * 0.31, 100], [1234.5, 1234.5 + lane.span / 20, 333]]) {
  const a = new Float32Array(px), b = new Float32Array(px);
  const ra = busyPerPixel(sp, [lane], t0, t1, px, a);
  busyPerPixel(sp, [exact], t0, t1, px, b);
  const sum = (x) => x.reduce((s, v) => s + v, 0);
  // Levels spread a bin's busy time evenly over it: per pixel they differ
  // from the kernels by up to a bin, in total by the edge bins at most.
  assert.ok(Math.abs(sum(a) - sum(b)) <= 0.01 * sum(b) + 2, `view ${t0}-${t1}: total busy ${sum(a)} vs ${sum(b)}`);
  assert.ok(ra.thin === ra.seen, 'drawn from levels: busy per pixel, not kernel by kernel');
}
// Deep in, the finest bins are wider than a pixel: the kernels themselves.
const deep = new Float32Array(500);
const r = busyPerPixel(sp, [lane], start[100] - 10, start[100] + 90, 500, deep);
assert.ok(r.seen > 0 && r.seen < 20 && r.thin < r.seen, `a deep view walks its ${r.seen} kernels`);
console.log('spans: ok');
