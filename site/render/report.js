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
import { renderOverlap } from './overlap.js';
import { renderFuse } from './fuse.js';
import { renderRanks } from './ranks.js';
import { renderRoofline } from './roofline.js';
import { renderExport } from './export.js';

const NAV = [
  ['summary', 'summary'], ['breakdown', 'categories'], ['kernels', 'kernels'], ['roofline', 'roofline'], ['timeline', 'timeline'],
  ['ranks', 'ranks'], ['lanes', 'streams'], ['overlap', 'overlap'], ['fuse', 'fuse'], ['crash', 'crash'], ['export', 'export'],
];

/**
 * @param {HTMLElement} root
 * @param {object} result the module's result JSON
 * @param {{stats?: object, saveReport?: () => Blob, roles?: object, fix?: Function}} [opts]
 *   roles, fix: page-only hooks for the summary's triage-role toggles and "Fix for Perfetto"
 */
export function renderReport(root, result, opts = {}) {
  resetColors();
  const a = (n) => artifactJSON(result, n);
  const bd = a('breakdown.json');
  const ov = a('overlap_opportunities.json');
  const sections = [
    renderSummary(result, a('profile_metadata.json'), opts.stats, { overlap: ov, roles: opts.roles, fix: opts.fix }),
    renderBreakdown(bd),
    renderKernels(a('kernel_table.json')),
    renderRoofline(a('roofline.json')),
    renderTimeline(a('gpu_timeline.json')),
    renderRanks(bd),
    renderLanes(a('gpu_lanes.json')),
    // triage: overlap_opportunities.json and fuse_opportunities.json
    renderOverlap(ov),
    renderFuse(a('fuse_opportunities.json')),
    renderCrash(a('crash_diagnosis.json')),
    renderText(result),
    renderExport(result, opts.saveReport ?? null),
  ].filter(Boolean);
  const present = new Set(sections.map((s) => s.id));
  const nav = h('nav.toc', { 'aria-label': 'report sections' },
    NAV.filter(([id]) => present.has(id)).map(([id, label]) => h('a', { href: `#${id}` }, label)));
  clear(root).append(nav, ...sections);
}

function renderText(result) {
  const md = ['profile_summary.md', 'crash_summary.md'].map((n) => [n, artifactText(result, n)]).filter(([, t]) => t);
  if (!md.length) return null;
  return h('section.card#text', { 'aria-label': 'text summaries' },
    md.map(([n, t]) => h('details', h('summary.mono', n), h('pre.code', t))));
}
