// DOM helpers. Every piece of user-supplied text (kernel names, file names,
// log lines) enters the page as a Text node or an attribute value — never as
// markup — so a kernel called `<img onerror=…>` is just a string — and
// shows its control and bidi characters (\x1b, \u{202e}) as the CLI does:
// one place, so a cell, tooltip or label written without line()/visible()
// still cannot clear, retitle or reorder what is shown (issue 24).
import { visible } from './tsv.js';
import { parseJSON } from './json.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * h('div.kpi', {title: x, onclick: f}, 'text', child, [more])
 * Tag may carry .classes and #id. Strings become Text nodes; null/false skipped.
 */
export function h(tag, attrs, ...children) {
  return build(document.createElement(parseTag(tag)), tag, attrs, children);
}

export function svg(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, parseTag(tag)), tag, attrs, children);
}

function parseTag(tag) {
  return tag.split(/[.#]/)[0] || 'div';
}

function build(el, tag, attrs, children) {
  for (const m of tag.matchAll(/([.#])([\w-]+)/g)) {
    if (m[1] === '.') el.classList.add(m[2]);
    else el.id = m[2];
  }
  // a falsy child in attrs' place (0: device 0, a count of 0) is still a child
  if (attrs != null && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.classList.add(...String(v).split(/\s+/).filter(Boolean));
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') Object.assign(el.style, v); // CSSOM: allowed under a strict CSP
    else if (k in el && !(el instanceof SVGElement)) el[k] = typeof v === 'string' && k !== 'value' ? visible(v) : v;
    else el.setAttribute(k, v === true ? '' : visible(String(v)));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(visible(String(c))));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

/** Parse an artifact's JSON; a missing or broken one renders as absent. */
export function artifactJSON(result, name) {
  const a = result?.artifacts?.find((x) => x.name === name);
  if (!a) return null;
  try {
    return parseJSON(a.text);
  } catch {
    return null;
  }
}

export function artifactText(result, name) {
  return result?.artifacts?.find((x) => x.name === name)?.text ?? null;
}

/** A report section with a heading and an anchor for the nav. */
export function section(id, title, ...body) {
  return h(`section.card#${id}`, { 'aria-labelledby': `${id}-h` },
    h(`h2#${id}-h`, title), ...body);
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // file:// and some permission states deny the async clipboard.
    const ta = h('textarea', { value: text, readOnly: true });
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  }
}
