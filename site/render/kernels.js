// The kernel table: sortable, filterable, top-N. Kernel names are long
// (templated C++), so cells truncate and the full name is in the title and
// in what "Copy" puts on the clipboard.
import { h, section } from './dom.js';
import { dur, int, pct } from './format.js';
import { catClass } from './colors.js';
import { dataTable } from './table.js';
import { middle, differAt } from './names.js';

const COLS = [
  // head…tail: Tensile tile configs and template arguments tell kernels apart (render/names.js)
  { key: 'kernel', label: 'kernel', cls: 'mono kname', text: true, w: 210, grow: true, cell: (r, v) => (r.merged_kernels ? `${v}: ${int(r.merged_kernels)} kernels` : middle(v, 44, at.get(v))) },
  { key: 'stage', label: 'stage', cls: 'mono', text: true, multiStage: true, w: 80 },
  { key: 'category', label: 'category', cls: 'mono', text: true, cell: (r, v) => [h(`i.sw.${catClass(v)}`), v], w: 120 },
  { key: 'provider', label: 'provider', cls: 'mono', text: true, w: 100 },
  { key: 'launches', label: 'launches', cls: 'num', fmt: int, w: 76 },
  { key: 'gpu_time_us', label: 'GPU time', cls: 'num', fmt: dur, w: 86 },
  { key: 'avg', label: 'avg', cls: 'num', fmt: dur, get: (r) => r.gpu_time_us / Math.max(r.launches, 1), w: 76 },
  { key: 'share', label: 'share', cls: 'num', fmt: (v) => pct(v, 2), w: 70 },
  { key: 'graph_replay', label: 'graph', cls: 'mono graph', fmt: (v) => (v ? 'graph' : ''), optional: true, w: 50 },
  { key: 'cpu_op', label: 'CPU op', cls: 'mono', text: true, w: 130 },
  // Call sites are long paths: show file(line): func, full path on hover.
  // file(line): func kept whole at the tail; the full path on click
  { key: 'python_location', label: 'Python', cls: 'mono', text: true, optional: true, cell: (r, v) => (v ? middle(v, 24) : ''), w: 170 },
];

let at = new Map();

export function renderKernels(kt) {
  if (!kt?.rows) return null;
  at = differAt(kt.rows.map((r) => r.kernel));
  const t = dataTable({
    name: 'kernels', rows: kt.rows, cols: COLS, sort: 'gpu_time_us', tableClass: 'kernels',
    placeholder: 'filter  (press /)', share: 'gpu_time_us',
    search: (r) => [r.kernel, r.category, r.provider, r.cpu_op, r.python_location, r.stage],
  });
  // past the row limit per stage the smallest kernels are summed per category
  const cut = kt.truncated ? h('p.note', `${int(kt.merged_kernels)} smaller kernels are summed in "(other kernels)" rows (each stage lists its largest 2,000).`) : null;
  return section('kernels', 'Kernels', ...(cut ? [cut] : []), t.toolbar, t.wrap);
}
