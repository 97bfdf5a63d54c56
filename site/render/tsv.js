// Spreadsheet-safe TSV cells for the tables' Copy (and the CSV exports to
// come): one rule, the same as Go's internal/escape.Cell. A text cell that
// starts with = + - @ would be run as a formula (=HYPERLINK(…), -2+3+cmd|…)
// when pasted: it gets a leading apostrophe. Numbers stay numbers.

const FORMULA = /^[=+\-@]/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** @param {any} v @returns {string} */
export function tsvCell(v) {
  if (v == null) return '';
  const s = String(v).replace(/[\t\n\r]/g, ' ');
  return typeof v !== 'number' && FORMULA.test(s) && !NUMBER.test(s) ? `'${s}` : s;
}
