// The inline Markdown the analyzer writes in its sentences (code spans,
// **bold**, backslash escapes), parsed into tokens — never into HTML — so a
// takeaway reads the same on the page as in profile_summary.md. No DOM here:
// the browser tests import it too.

const PUNCT = /[!-/:-@[-`{-~]/;

/**
 * @param {string} s one line of Markdown
 * @returns {Array<{t: 'text'|'code', s: string} | {t: 'b', c: Array}>}
 */
export function inlineTokens(s) {
  const out = [];
  let buf = '';
  const flush = () => { if (buf) out.push({ t: 'text', s: buf }); buf = ''; };
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && PUNCT.test(s[i + 1])) { buf += s[i + 1]; i += 2; continue; }
    if (c === '`') {
      let n = 0;
      while (s[i + n] === '`') n++;
      // CommonMark: the span ends at the next run of exactly n backticks.
      let j = i + n, end = -1;
      while (j < s.length) {
        const k = s.indexOf('`', j);
        if (k < 0) break;
        let m = 0;
        while (s[k + m] === '`') m++;
        if (m === n) { end = k; break; }
        j = k + m;
      }
      if (end < 0) { buf += s.slice(i, i + n); i += n; continue; }
      let code = s.slice(i + n, end);
      if (code.length >= 2 && code[0] === ' ' && code[code.length - 1] === ' ' && code.trim()) code = code.slice(1, -1);
      flush();
      out.push({ t: 'code', s: code });
      i = end + n;
      continue;
    }
    if (c === '*' && s[i + 1] === '*') {
      const e = s.indexOf('**', i + 2);
      if (e > i + 2) { flush(); out.push({ t: 'b', c: inlineTokens(s.slice(i + 2, e)) }); i = e + 2; continue; }
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}

/** The plain text of a Markdown line (what a reader sees). */
export function inlineText(s) {
  const walk = (ts) => ts.map((t) => (t.t === 'b' ? walk(t.c) : t.s)).join('');
  return walk(inlineTokens(s));
}

/** The list items under `## heading` of a Markdown document, in order. */
export function mdListUnder(md, heading) {
  if (!md) return [];
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (at < 0) return [];
  const out = [];
  for (const l of lines.slice(at + 1)) {
    if (/^#{1,2} /.test(l)) break;
    if (l.startsWith('- ')) out.push(l.slice(2));
    else if (/^\s+\S/.test(l) && out.length) out[out.length - 1] += ` ${l.trim()}`; // a wrapped item
  }
  return out;
}
