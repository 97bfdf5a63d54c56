// Readable long names (templated C++ kernels, Tensile tile configs, Python
// sites): a middle ellipsis that keeps the head and the distinguishing tail
// (the tile config, the template arguments, file(line)), and a button that
// shows the whole name — by click or by keyboard (it is a <button>) — with
// a copy button beside the expanded name.
import { h, copyText } from './dom.js';
import { line } from './tsv.js';

/** head…tail of s in at most n characters; the tail gets the larger part. */
export function middleText(s, n) {
  if (s == null) return '';
  s = String(s);
  if (s.length <= n) return s;
  const tail = Math.ceil((n - 1) * 0.6);
  return `${s.slice(0, n - 1 - tail)}\u2026${s.slice(s.length - tail)}`;
}

/**
 * Where each name first differs from its nearest other name (the longest
 * common prefix with a neighbour in sorted order): Tensile GEMMs share 40+
 * leading characters and differ in the tile config in the middle.
 * @param {string[]} names
 * @returns {Map<string, number>}
 */
export function differAt(names) {
  const u = [...new Set(names.filter((x) => x != null).map(String))].sort();
  const lcp = (a, b) => { let i = 0; while (i < a.length && i < b.length && a[i] === b[i]) i++; return i; };
  const out = new Map();
  u.forEach((x, i) => out.set(x, Math.max(i ? lcp(u[i - 1], x) : 0, i + 1 < u.length ? lcp(x, u[i + 1]) : 0)));
  return out;
}

/**
 * s in at most n characters, keeping what tells it apart: head…tail when it
 * differs from its neighbours early, else head…(the part where it differs)…tail.
 * @param {number} [d] where s first differs (differAt)
 */
export function abbrev(s, n, d = 0) {
  if (s == null) return '';
  s = String(s);
  if (s.length <= n) return s;
  if (d <= n * 0.4) return middleText(s, n);
  const head = 8, tail = 10, mid = n - head - tail - 2;
  const start = Math.max(head, Math.min(d - 4, s.length - tail - mid));
  if (start <= head) return `${s.slice(0, head + mid)}\u2026${s.slice(s.length - tail)}`;
  return `${s.slice(0, head)}\u2026${s.slice(start, start + mid)}\u2026${s.slice(s.length - tail)}`;
}

/** A name cell's content: the whole name when short, else an expandable button. */
export function middle(s, n, d = 0) {
  s = s == null ? '' : line(String(s)); // controls and bidi shown as the CLI shows them
  if (s.length <= n) return s;
  const short = abbrev(s, n, d);
  const btn = h('button.kn', { type: 'button', title: s, 'aria-expanded': 'false' }, short);
  const copy = h('button.copy', { type: 'button', hidden: true, title: 'copy the whole name' }, 'copy');
  btn.addEventListener('click', () => {
    const open = btn.getAttribute('aria-expanded') !== 'true';
    btn.setAttribute('aria-expanded', String(open));
    btn.textContent = open ? s : short;
    copy.hidden = !open;
  });
  copy.addEventListener('click', async () => { copy.textContent = (await copyText(s)) ? 'copied' : 'copy failed'; });
  return h('span.knwrap', btn, copy);
}
