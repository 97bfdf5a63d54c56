// A sortable, filterable data table with top-N and Copy (TSV), shared by the
// kernel table and the opportunity tables. Long names truncate in their cell;
// the full text is in the title and in what "Copy" puts on the clipboard.
// A spec with column widths (Col.w, px) lays out with `table-layout: fixed`:
// the browser sizes columns from those widths, not by measuring every cell's
// text (long unbreakable kernel names made automatic layout slow). Above
// VIRTUAL_ROWS shown rows, only the rows in view (plus a margin) are in the
// DOM, between two spacer rows; scrolling the table's box moves the window.
import { h, clear, copyText } from './dom.js';
import { int, pct } from './format.js';
import { tsvCell, line, visible } from './tsv.js';

/**
 * @typedef {{key: string, label: string, cls: string, text?: boolean,
 *   fmt?: (v: any, r: object) => string, get?: (r: object) => any,
 *   title?: (r: object) => string|null, cell?: (r: object, v: any) => Node|string|Array,
 *   multiStage?: boolean, optional?: boolean, tsv?: (r: object) => string,
 *   w?: number, grow?: boolean}} Col  (w: width in px; grow: takes spare width, at least w)
 * @typedef {{name: string, rows: object[], cols: Col[], sort: string, dir?: number,
 *   top?: number,   (sort: a column key, or null for the rows' own order) tops?: number[], search: (r: object) => (string|null|undefined)[],
 *   placeholder?: string, share?: string, shareWhat?: string, tableClass?: string}} Spec
 *   (share: a time field; the status line gives the shown rows' part of the rows' total)
 */

const VIRTUAL_ROWS = 200;
const ROW_PX = 20; // a row's height in a fixed table (CSS: .dtable.fixed td)
const MARGIN_ROWS = 40;
const NUM_W = 44;

/** @param {Spec} spec @returns {{toolbar: HTMLElement, wrap: HTMLElement}} */
export function dataTable(spec) {
  const rows = spec.rows;
  const stages = [...new Set(rows.map((r) => r.stage))];
  const cols = spec.cols.filter((c) => (!c.multiStage || stages.length > 1) &&
    (!c.optional || rows.some((r) => { const v = c.get ? c.get(r) : r[c.key]; return v != null && v !== false && v !== ''; })));
  const val = (r, c) => (c.get ? c.get(r) : r[c.key]);
  const tops = spec.tops ?? [25, 100, 500, 0];
  const st = { sort: spec.sort, dir: spec.dir ?? -1, q: '', stage: '', top: spec.top ?? tops[0] };

  const q = h('input.filter', { type: 'search', placeholder: spec.placeholder ?? 'filter', title: 'substring match; spaces separate terms that must all match', 'aria-label': `filter ${spec.name}`, spellcheck: false });
  const stageSel = stages.length < 2 ? null : h('select', { 'aria-label': 'stage' },
    h('option', { value: '' }, 'all stages'), stages.map((s) => h('option', { value: s }, s)));
  const topSel = tops.length < 2 ? null : h('select', { 'aria-label': 'rows shown' },
    tops.map((n) => h('option', { value: n, selected: n === st.top }, n ? `top ${n}` : 'all')));
  const status = h('span.dim.status', { role: 'status' });
  const copyBtn = h('button', { type: 'button', title: 'copy the rows shown as TSV' }, 'Copy');
  const thead = h('thead');
  const tbody = h('tbody');
  const fixed = cols.every((c) => c.w);
  const table = h(`table.dtable${spec.tableClass ? `.${spec.tableClass}` : ''}${fixed ? '.fixed' : ''}`,
    fixed ? h('colgroup', h('col', { style: { width: `${NUM_W}px` } }), cols.map((c) => h('col', { style: c.grow ? null : { width: `${c.w}px` } }))) : null,
    thead, tbody);
  // Columns that grow (long names) take the spare width, never less than w.
  if (fixed) table.style.minWidth = `${NUM_W + cols.reduce((n, c) => n + c.w, 0)}px`;
  // Rows below the scroll box's edge: a cue says so (rows hidden in a
  // scroll box were easy to miss), gone once scrolled to the end.
  const cue = h('div.morecue', { 'aria-hidden': 'true', hidden: true });
  const wrap = h('div.tablewrap', table, cue);
  const cueNow = () => {
    const below = wrap.scrollHeight - wrap.scrollTop - wrap.clientHeight;
    const rowsBelow = Math.round(below / ROW_PX);
    cue.hidden = !(wrap.clientHeight && below > ROW_PX / 2);
    if (!cue.hidden) cue.textContent = `\u25BE about ${int(Math.max(1, rowsBelow))} more row${rowsBelow === 1 ? '' : 's'} below: scroll the table`;
  };
  // Only while the box is on screen: reading its scrollHeight in a section
  // the browser skips (content-visibility: auto) would lay that section out.
  let cueQueued = false, onScreen = false;
  const cueSoon = () => { if (onScreen && !cueQueued) { cueQueued = true; requestAnimationFrame(() => { cueQueued = false; cueNow(); }); } };
  wrap.addEventListener('scroll', cueSoon, { passive: true });
  if (globalThis.ResizeObserver) new ResizeObserver(cueSoon).observe(wrap);
  if (globalThis.IntersectionObserver) new IntersectionObserver((es) => { onScreen = es[es.length - 1].isIntersecting; cueSoon(); }).observe(wrap);
  let shown = [];
  let win = null; // [from, to) of shown in the DOM when virtual

  const headers = () => clear(thead).append(h('tr', h('th.num', { scope: 'col' }, '#'), cols.map((c) => {
    const active = st.sort === c.key;
    return h(`th.${c.cls.split(' ').join('.')}`, { scope: 'col', 'aria-sort': active ? (st.dir < 0 ? 'descending' : 'ascending') : 'none' },
      h('button.sort', { type: 'button', onclick: () => sortBy(c) }, c.label, active ? (st.dir < 0 ? ' ▾' : ' ▴') : ''));
  })));

  const sortBy = (c) => {
    if (st.sort === c.key) st.dir = -st.dir;
    else { st.sort = c.key; st.dir = c.text ? 1 : -1; }
    update();
  };

  const update = () => {
    const terms = st.q.toLowerCase().split(/\s+/).filter(Boolean);
    // No sort column: the artifact's own order (the CLI's table order).
    const col = st.sort == null ? null : cols.find((c) => c.key === st.sort) ?? cols[0];
    let list = rows.filter((r) => (!st.stage || r.stage === st.stage) && terms.every((t) =>
      spec.search(r).some((v) => v && String(v).toLowerCase().includes(t))));
    if (col) list = list.map((r) => [val(r, col), r]).sort((a, b) => {
      const x = a[0], y = b[0];
      if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1;
      // (< and > compare a BigInt id with a number; x - y would throw)
      return (typeof x === 'string' ? x.localeCompare(y) : x < y ? -1 : x > y ? 1 : 0) * st.dir;
    }).map((p) => p[1]);
    shown = st.top ? list.slice(0, st.top) : list;
    let s = `${int(shown.length)} of ${int(list.length)} rows` +
      (list.length !== rows.length ? ` (filtered from ${int(rows.length)})` : '');
    if (spec.share) {
      // Shares of the rows' summed time (of the chosen stage): per-row
      // shares are per stage and do not add up across stages.
      const sum = (l) => l.reduce((n, r) => n + (r[spec.share] ?? 0), 0);
      const all = sum(st.stage ? rows.filter((r) => r.stage === st.stage) : rows);
      const of = (l) => pct(all > 0 ? sum(l) / all : 0);
      s += ` · shown ${of(shown)} of ${spec.shareWhat ?? 'GPU time'}${terms.length || st.stage ? ` · matches ${of(list)}` : ''}`;
    }
    status.textContent = s;
    cueSoon();
    headers();
    win = null;
    if (fixed && shown.length > VIRTUAL_ROWS) {
      wrap.scrollTop = 0;
      place();
    } else {
      clear(tbody).append(...shown.map(row));
    }
  };

  const row = (r, i) => h('tr', h('td.num.dim', i + 1), cols.map((c) => {
    const v = val(r, c);
    const title = c.title ? c.title(r) : c.text && v ? visible(String(v)) : null;
    const cls = c.cls.split(' ').join('.');
    if (c.cell) return h(`td.${cls}`, { title }, c.cell(r, v));
    // input text shows its control and bidi characters (\x1b, \u{202e})
    return h(`td.${cls}`, { title }, v == null ? '' : c.fmt ? c.fmt(v, r) : typeof v === 'string' ? line(v) : String(v));
  }));

  // Virtual rows: the window around the visible part of the table's box.
  const spacer = (n) => (n ? [h('tr.spacer', { 'aria-hidden': 'true' }, h('td', { colSpan: cols.length + 1, style: { height: `${n * ROW_PX}px` } }))] : []);
  const place = () => {
    const view = Math.ceil((wrap.clientHeight || 800) / ROW_PX);
    const first = Math.floor(wrap.scrollTop / ROW_PX);
    const from = Math.max(0, first - MARGIN_ROWS);
    const to = Math.min(shown.length, first + view + MARGIN_ROWS);
    if (win && win[0] === from && win[1] === to) return;
    win = [from, to];
    clear(tbody).append(...spacer(from), ...shown.slice(from, to).map((r, i) => row(r, from + i)), ...spacer(shown.length - to));
  };
  let queued = false;
  wrap.addEventListener('scroll', () => {
    if (!win || queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; if (win) place(); });
  }, { passive: true });

  q.addEventListener('input', () => { st.q = q.value; update(); });
  stageSel?.addEventListener('change', () => { st.stage = stageSel.value; update(); });
  topSel?.addEventListener('change', () => { st.top = Number(topSel.value); update(); });
  copyBtn.addEventListener('click', async () => {
    const lines = [cols.map((c) => tsvCell(c.label)).join('\t'),
      ...shown.map((r) => cols.map((c) => {
        return tsvCell(c.tsv ? c.tsv(r) : val(r, c));
      }).join('\t'))];
    const ok = await copyText(`${lines.join('\n')}\n`);
    copyBtn.textContent = ok ? `Copied ${shown.length}` : 'Copy failed';
    setTimeout(() => { copyBtn.textContent = 'Copy'; }, 1500);
  });
  update();

  return {
    toolbar: h('div.toolbar', q, stageSel, topSel, copyBtn, status),
    wrap,
  };
}
