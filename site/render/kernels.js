// The kernel table: sortable, filterable, top-N. Kernel names are long
// (templated C++), so cells truncate and the full name is in the title and
// in what "Copy" puts on the clipboard.
import { h, section, clear, copyText } from './dom.js';
import { dur, int, pct } from './format.js';
import { catClass } from './colors.js';

const COLS = [
  { key: 'kernel', label: 'kernel', cls: 'mono kname', text: true },
  { key: 'stage', label: 'stage', cls: 'mono', text: true, multiStage: true },
  { key: 'category', label: 'category', cls: 'mono', text: true },
  { key: 'provider', label: 'provider', cls: 'mono', text: true },
  { key: 'launches', label: 'launches', cls: 'num', fmt: int },
  { key: 'gpu_time_us', label: 'GPU time', cls: 'num', fmt: dur },
  { key: 'avg', label: 'avg', cls: 'num', fmt: dur, get: (r) => r.gpu_time_us / Math.max(r.launches, 1) },
  { key: 'share', label: 'share', cls: 'num', fmt: (v) => pct(v, 2) },
  { key: 'graph_replay', label: 'graph', cls: 'mono graph', fmt: (v) => (v ? 'graph' : ''), optional: true },
  { key: 'cpu_op', label: 'CPU op', cls: 'mono', text: true },
  // Call sites are long paths: show file(line): func, full path on hover.
  { key: 'python_location', label: 'Python', cls: 'mono', text: true, optional: true, fmt: (v) => v.split('/').pop() },
];
const TOP = [25, 100, 500, 0];

export function renderKernels(kt) {
  if (!kt?.rows) return null;
  const rows = kt.rows;
  const stages = [...new Set(rows.map((r) => r.stage))];
  const cols = COLS.filter((c) => (!c.multiStage || stages.length > 1) && (!c.optional || rows.some((r) => r[c.key] != null && r[c.key] !== false)));
  const val = (r, c) => (c.get ? c.get(r) : r[c.key]);
  const st = { sort: 'gpu_time_us', dir: -1, q: '', stage: '', top: 25 };

  const q = h('input.filter', { type: 'search', placeholder: 'filter  (press /)', title: 'substring match on kernel, category, provider, CPU op, Python site; spaces separate terms that must all match', 'aria-label': 'filter kernels', spellcheck: false });
  const stageSel = stages.length < 2 ? null : h('select', { 'aria-label': 'stage' },
    h('option', { value: '' }, 'all stages'), stages.map((s) => h('option', { value: s }, s)));
  const topSel = h('select', { 'aria-label': 'rows shown' },
    TOP.map((n) => h('option', { value: n, selected: n === st.top }, n ? `top ${n}` : 'all')));
  const status = h('span.dim.status', { role: 'status' });
  const copyBtn = h('button', { type: 'button', title: 'copy the rows shown as TSV' }, 'Copy');
  const thead = h('thead');
  const tbody = h('tbody');
  let shown = [];

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
    const col = cols.find((c) => c.key === st.sort) ?? cols[0];
    let list = rows.filter((r) => (!st.stage || r.stage === st.stage) && terms.every((t) =>
      [r.kernel, r.category, r.provider, r.cpu_op, r.python_location, r.stage].some((v) => v && v.toLowerCase().includes(t))));
    list = list.map((r) => [val(r, col), r]).sort((a, b) => {
      const x = a[0], y = b[0];
      if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1;
      return (typeof x === 'string' ? x.localeCompare(y) : x - y) * st.dir;
    }).map((p) => p[1]);
    const total = list.reduce((s, r) => s + r.share, 0);
    shown = st.top ? list.slice(0, st.top) : list;
    const shownShare = shown.reduce((s, r) => s + r.share, 0);
    status.textContent = `${int(shown.length)} of ${int(list.length)} rows` +
      (list.length !== rows.length ? ` (filtered from ${int(rows.length)})` : '') +
      ` · shown ${pct(shownShare)} of GPU time${terms.length || st.stage ? ` · matches ${pct(total)}` : ''}`;
    headers();
    clear(tbody).append(...shown.map((r, i) => h('tr', h('td.num.dim', i + 1), cols.map((c) => {
      const v = val(r, c);
      const txt = v == null ? '' : c.fmt ? c.fmt(v) : String(v);
      const td = h(`td.${c.cls.split(' ').join('.')}`, { title: c.text && v ? v : null }, txt);
      if (c.key === 'category') td.prepend(h(`i.sw.${catClass(v)}`));
      return td;
    }))));
  };

  q.addEventListener('input', () => { st.q = q.value; update(); });
  stageSel?.addEventListener('change', () => { st.stage = stageSel.value; update(); });
  topSel.addEventListener('change', () => { st.top = Number(topSel.value); update(); });
  copyBtn.addEventListener('click', async () => {
    const lines = [cols.map((c) => c.label).join('\t'),
      ...shown.map((r) => cols.map((c) => {
        const v = val(r, c);
        return v == null ? '' : String(v).replace(/[\t\n]/g, ' ');
      }).join('\t'))];
    const ok = await copyText(`${lines.join('\n')}\n`);
    copyBtn.textContent = ok ? `Copied ${shown.length}` : 'Copy failed';
    setTimeout(() => { copyBtn.textContent = 'Copy'; }, 1500);
  });
  update();

  return section('kernels', 'Kernels',
    h('div.toolbar', q, stageSel, topSel, copyBtn, status),
    h('div.tablewrap', h('table.kernels', thead, tbody)),
  );
}
