// jsbridge/split.js on real traces (node): every cut the splitter makes is
// a true boundary between two traceEvents elements, the pieces put back
// together are the file, and a candidate that is only an object inside
// args is refused.
//   node site/test/split.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { findCut, Splitter } from '../../jsbridge/split.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = path.resolve(ROOT, '../shared/testdata');
const FILES = [
  `${SHARED}/gpu/traces/graph_on.trace.json.gz`,
  `${SHARED}/gpu/traces/tp_rank0.trace.json.gz`,
  `${SHARED}/gpu/traces/with_stack.trace.json.gz`,
  `${SHARED}/traces/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz`,
  `${SHARED}/traces/tracelens/mi300/resnet_act_checkpoint.json.gz`,
];

/** Offsets where an element of the top-level traceEvents array starts (a real JSON scan). */
function elementStarts(b) {
  const starts = new Set();
  let depth = 0, inStr = false, key = '', lastStr = '', arrDepth = -1, strStart = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (inStr) {
      if (c === 0x5c) { i++; continue; }
      if (c === 0x22) { inStr = false; lastStr = b.toString('utf8', strStart + 1, i); }
      continue;
    }
    if (c === 0x22) { inStr = true; strStart = i; continue; }
    if (c === 0x3a) { key = lastStr; continue; }
    if (c === 0x5b) {
      depth++;
      if (arrDepth === -1 && ((depth === 2 && key === 'traceEvents') || depth === 1)) arrDepth = depth;
      continue;
    }
    if (c === 0x7b) { if (depth === arrDepth) starts.add(i); depth++; continue; }
    if (c === 0x7d || c === 0x5d) {
      if (c === 0x5d && depth === arrDepth) arrDepth = -2; // traceEvents ended
      depth--;
    }
  }
  return starts;
}

let cuts = 0;
for (const f of FILES) {
  if (!fs.existsSync(f)) { console.log(`skip ${f}`); continue; }
  const raw = zlib.gunzipSync(fs.readFileSync(f));
  const starts = elementStarts(raw);
  assert.ok(starts.size > 100, `${f}: traceEvents found`);
  const s = new Splitter(1 << 20);
  s.min = 64 << 10;
  const pieces = [];
  for (let o = 0; o < raw.length; o += 16 << 10) {
    s.push(raw.subarray(o, Math.min(o + (16 << 10), raw.length)));
    for (let p; (p = s.take());) { pieces.push(Buffer.from(p)); s.recycle(p.buffer); s.min = 256 << 10; }
  }
  pieces.push(Buffer.from(s.end()));
  assert.ok(Buffer.concat(pieces).equals(raw), `${f}: pieces make the file`);
  let off = 0;
  for (const p of pieces.slice(0, -1)) {
    off += p.length;
    assert.ok(starts.has(off), `${f}: cut at ${off} is an element boundary`);
  }
  cuts += pieces.length - 1;
  console.log(`ok   ${path.basename(f)}: ${(raw.length / 1e6).toFixed(1)} MB, ${pieces.length - 1} cuts, all at element boundaries`);
}

// Objects inside args are no cut; an element whose "ph" is far away is no cut either.
const enc = new TextEncoder();
const doc = enc.encode('{"traceEvents":[{"ph":"X","args":{"a":[{"x":1}, {"y":2, "ph2":3}]}},\n{"name":"k","ph":"X"}]}');
const p = findCut(doc, 20, true);
assert.equal(new TextDecoder().decode(doc.subarray(p, p + 10)), '{"name":"k', 'the cut is the next element, not the object in args');
const far = enc.encode(`{"traceEvents":[{"ph":"X"},{"args":"${'x'.repeat(600)}","ph":"X"}]}`);
assert.equal(findCut(far, 1, true), -1, 'no "ph" within the lookahead: no cut');
assert.ok(findCut(far.subarray(0, 40), 1, false) <= -2, 'lookahead cut short: ask again later');
// In a document with newlines, a `},{` without one is inside a string.
const pretty = enc.encode('[\n{"ph":"X","name":"a},{\\"ph\\":1, \\"x\\":2"},\n{"ph":"X","name":"b"}]');
const q = findCut(pretty, 3, true);
assert.equal(new TextDecoder().decode(pretty.subarray(q, q + 6)), '{"ph":', 'the cut is the element after the newline');
assert.ok(pretty[q - 1] === 0x0a, 'not the one inside the name');
console.log(`split: ${cuts} cuts checked; 4 unit cases ok`);
