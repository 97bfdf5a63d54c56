// node site/test/tsv.mjs — the Copy (TSV) cell rule against formula injection.
import assert from 'node:assert/strict';
import { tsvCell } from '../render/tsv.js';

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
]) assert.equal(tsvCell(v), want, String(v));
console.log('tsv: ok');
