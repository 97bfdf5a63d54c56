// Composes the report from the module's result. Used by the page and by the
// saved offline report, so both show the same views of the same artifacts.
import { h, clear, artifactJSON, artifactText } from './dom.js';
import { resetColors } from './colors.js';
import { renderSummary } from './summary.js';
import { renderBreakdown } from './breakdown.js';
import { renderKernels } from './kernels.js';
import { renderTimeline } from './timeline.js';
import { renderLanes } from './lanes.js';
import { renderCrash } from './crash.js';
import { renderExport } from './export.js';

const NAV = [
  ['summary', 'summary'], ['breakdown', 'categories'], ['kernels', 'kernels'], ['timeline', 'timeline'],
  ['lanes', 'streams'], ['crash', 'crash'], ['export', 'export'],
];

/**
 * @param {HTMLElement} root
 * @param {object} result the module's result JSON
 * @param {{stats?: object, saveReport?: () => Blob}} [opts]
 */
export function renderReport(root, result, opts = {}) {
  resetColors();
  const a = (n) => artifactJSON(result, n);
  const sections = [
    renderSummary(result, a('profile_metadata.json'), opts.stats),
    renderBreakdown(a('breakdown.json')),
    renderKernels(a('kernel_table.json')),
    renderTimeline(a('gpu_timeline.json')),
    renderLanes(a('gpu_lanes.json')),
    // FUTURE SECTIONS — slots kept in place so new analyses drop in here, each
    // rendered from its own artifact once the module writes it:
    //   overlap opportunities (compute/comm/memcpy that could overlap)
    //   fuse opportunities (chains of small kernels worth fusing)
    futureSlot('overlap', 'Overlap opportunities'),
    futureSlot('fuse', 'Fuse opportunities'),
    renderCrash(a('crash_diagnosis.json')),
    renderText(result),
    renderExport(result, opts.saveReport ?? null),
  ].filter(Boolean);
  const present = new Set(sections.map((s) => s.id));
  const nav = h('nav.toc', { 'aria-label': 'report sections' },
    NAV.filter(([id]) => present.has(id)).map(([id, label]) => h('a', { href: `#${id}` }, label)));
  clear(root).append(nav, ...sections);
}

function futureSlot(id, title) {
  // Hidden until an artifact feeds it; present so the layout has its place.
  return h(`section.card.future#${id}`, { hidden: true, dataset: { future: id }, 'aria-label': title });
}

function renderText(result) {
  const md = ['profile_summary.md', 'crash_summary.md'].map((n) => [n, artifactText(result, n)]).filter(([, t]) => t);
  if (!md.length) return null;
  return h('section.card#text', { 'aria-label': 'text summaries' },
    md.map(([n, t]) => h('details', h('summary.mono', n), h('pre.code', t))));
}
