// Readable long names (templated C++ kernels, Tensile tile configs, Python
// sites): a middle ellipsis that keeps the head and the distinguishing tail
// (the tile config, the template arguments, file(line)), and a button that
// shows the whole name — by click or by keyboard (it is a <button>) — with
// a copy button beside the expanded name.
import { h, copyText } from './dom.js';

/** head…tail of s in at most n characters; the tail gets the larger part. */
export function middleText(s, n) {
  if (s == null) return '';
  s = String(s);
  if (s.length <= n) return s;
  const tail = Math.ceil((n - 1) * 0.6);
  return `${s.slice(0, n - 1 - tail)}\u2026${s.slice(s.length - tail)}`;
}

/** A name cell's content: the whole name when short, else an expandable button. */
export function middle(s, n) {
  s = s == null ? '' : String(s);
  if (s.length <= n) return s;
  const short = middleText(s, n);
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
