// Spreadsheet-safe TSV cells for the tables' Copy (and the CSV exports to
// come): one rule, the same as Go's internal/escape.Cell. A text cell that
// starts with = + - @ would be run as a formula (=HYPERLINK(…), -2+3+cmd|…)
// when pasted: it gets a leading apostrophe. Numbers stay numbers.
// Control and bidi characters of the input (ESC, BEL, U+202E …) are shown
// as Go's escape.Visible / Line show them (\x1b, \u{202e}): in the TSV and
// in the table cells, so a name cannot reorder or hide what is shown.
// site/test/tsv.mjs checks all three against strings Go made.

const FORMULA = /^[=+\-@]/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
// C0 (but tab and newline), DEL, C1, bidi embeddings/overrides/isolates,
// the direction marks U+061C/200E/200F, U+FEFF, and U+2028/2029: Go's
// escape.unsafeRune.
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const UNSAFE_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

const show = (c) => {
  const n = c.charCodeAt(0);
  return n < 0x80 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16).padStart(4, '0')}}`;
};

/** Go's escape.Visible: controls and bidi shown, tabs and newlines kept.
 * @param {string} s @returns {string} */
export function visible(s) { return String(s).replace(UNSAFE, show); }

/** Go's escape.Line: Visible for one line (tabs and newlines shown too).
 * @param {string} s @returns {string} */
export function line(s) { return String(s).replace(UNSAFE_LINE, show); }

/** @param {any} v @returns {string} */
export function tsvCell(v) {
  if (v == null) return '';
  const s = line(String(v).replace(/[\t\n\r]/g, ' '));
  return typeof v !== 'number' && FORMULA.test(s) && !NUMBER.test(s) ? `'${s}` : s;
}
