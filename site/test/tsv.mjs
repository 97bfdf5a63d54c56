// node site/test/tsv.mjs — the Copy (TSV) cell rule against formula injection,
// and control/bidi characters shown exactly as Go's internal/escape shows
// them (internal/escape/testdata/cells.json, written by Go's TestCellsGolden).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tsvCell, visible, line } from '../render/tsv.js';

for (const [v, want] of [
  ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
  ['-2+3+cmd|\' /C calc\'!A0', `'-2+3+cmd|' /C calc'!A0`],
  ['+1+1', `'+1+1`],
  ['@SUM(A1)', `'@SUM(A1)`],
  ['a\tb\nc', 'a b c'],
  [-2.5, '-2.5'],
  ['-12.5', '-12.5'],
  ['Cijk_Alik', 'Cijk_Alik'],
  [null, ''],
  ['\x1b]0;pwned\x07\u202etxt', '\\x1b]0;pwned\\x07\\u{202e}txt'],
]) assert.equal(tsvCell(v), want, String(v));

const golden = JSON.parse(readFileSync(new URL('../../internal/escape/testdata/cells.json', import.meta.url), 'utf8'));
assert.ok(golden.length > 20);
for (const g of golden) {
  assert.equal(tsvCell(g.in), g.cell, `tsvCell(${JSON.stringify(g.in)})`);
  assert.equal(visible(g.in), g.visible, `visible(${JSON.stringify(g.in)})`);
  assert.equal(line(g.in), g.line, `line(${JSON.stringify(g.in)})`);
}
console.log(`tsv: ok (${golden.length} strings as Go shows them)`);
