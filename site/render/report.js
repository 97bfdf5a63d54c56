// Composes the report from the module's result. Used by the page and by the
// saved offline report, so both show the same views of the same artifacts.
import { h, clear, artifactJSON, artifactText } from './dom.js';
import { resetColors } from './colors.js';
import { renderSummary } from './summary.js';
import { renderVerdict } from './verdict.js';
import { renderDiff, diffLead } from './diff.js';
import { renderBreakdown } from './breakdown.js';
import { renderKernels } from './kernels.js';
import { renderTimeline } from './timeline.js';
import { renderIdle } from './idle.js';
import { renderLanes } from './lanes.js';
import { renderCrash } from './crash.js';
import { renderOverlap } from './overlap.js';
import { renderFuse } from './fuse.js';
import { renderRanks } from './ranks.js';
import { renderRoofline } from './roofline.js';
import { renderExport } from './export.js';

const NAV = [
  ['verdict', 'verdict'], ['diff', 'comparison'], ['summary', 'summary'], ['breakdown', 'categories'], ['kernels', 'kernels'], ['roofline', 'roofline'], ['timeline', 'timeline'], ['idle', 'idle'],
  ['ranks', 'ranks'], ['lanes', 'streams'], ['overlap', 'overlap'], ['fuse', 'fuse'], ['crash', 'crash'], ['export', 'export'],
];

/**
 * Renders section by section (summary first), yielding to the browser once
 * a slice of work passes SLICE_MS, so a large report never blocks the page
 * for long (sections below the fold are `content-visibility: auto` in
 * style.css: the browser lays out and paints only what is in view) (parsing an artifact and building its view happen per section,
 * with input and paint in between) while a small one still renders at once.
 * A section entry is a thunk (or an already built node, or null).
 * @param {HTMLElement} root
 * @param {object} result the module's result JSON
 * @param {{stats?: object, saveReport?: () => Blob, roles?: object, fix?: Function}} [opts]
 *   roles, fix: page-only hooks for the summary's triage-role toggles and "Fix for Perfetto"
 * @returns {Promise<{[id: string]: number}>} ms spent building each section
 */
export async function renderReport(root, result, opts = {}) {
  const run = (renderRun = {});
  resetColors();
  const cache = new Map();
  const a = (n) => { if (!cache.has(n)) cache.set(n, artifactJSON(result, n)); return cache.get(n); };
  const sections = [
    () => renderVerdict(result, {
      meta: a('profile_metadata.json'), bd: a('breakdown.json'), crash: a('crash_diagnosis.json'), title: reportTitle(result),
      diff: a('diff.json') && diffLead(a('diff.json'), opts.force, opts.swap),
    }),
    () => renderDiff(a('diff.json')),
    () => renderSummary(result, a('profile_metadata.json'), opts.stats, { overlap: a('overlap_opportunities.json'), roles: opts.roles, fix: opts.fix }),
    () => renderBreakdown(a('breakdown.json')),
    () => renderKernels(a('kernel_table.json')),
    () => renderRoofline(a('roofline.json')),
    () => renderTimeline(a('gpu_timeline.json')),
    () => renderIdle(a('idle.json'), a('launch_stats.json')),
    () => renderRanks(a('breakdown.json'), { result, a }),
    () => renderLanes(a('gpu_lanes.json'), opts.spans),
    // triage: overlap_opportunities.json and fuse_opportunities.json
    () => renderOverlap(a('overlap_opportunities.json')),
    () => renderFuse(a('fuse_opportunities.json')),
    () => renderCrash(a('crash_diagnosis.json')),
    () => renderText(result),
    () => renderExport(result, opts.saveReport ?? null),
  ];
  sections[2].id = 'summary';
  sections[4].id = 'kernels';
  const nav = h('nav.toc', { 'aria-label': 'report sections' });
  const links = new Map(NAV.map(([id, label]) => [id, h('a', { href: `#${id}` }, label)]));
  clear(root).append(nav);
  const ms = {};
  let slice = performance.now();
  for (let i = 0; i < sections.length; i++) {
    // The summary paints first, then the sections down to the kernel table
    // in a frame of their own (the first screen); then a yield whenever a
    // slice is used up. Each frame lays out a part of the report, not all.
    if (i > 0 && (FRAME_AFTER.has(sections[i - 1].id) || performance.now() - slice > SLICE_MS)) {
      await (FRAME_AFTER.has(sections[i - 1].id) ? nextFrame() : nextTask());
      slice = performance.now();
    }
    if (run !== renderRun) return ms; // a newer report replaced this one
    const t0 = performance.now();
    const s = typeof sections[i] === 'function' ? sections[i]() : sections[i];
    if (!s) continue;
    ms[s.id || i] = performance.now() - t0;
    root.append(s);
    // The verdict's heading takes the focus the drop zone or Cancel had
    // (a screen reader starts at the answer), unless the user moved it.
    const had = document.activeElement;
    if (s.id === 'verdict' && opts.focus && (!had || had === document.body || !had.checkVisibility())) {
      window.scrollTo(0, 0); // a new report starts at its answer
      s.querySelector('h2')?.focus({ preventScroll: true });
    }
    // Links keep NAV's order whatever order sections arrive in.
    if (links.has(s.id)) nav.replaceChildren(...NAV.filter(([id]) => id === s.id || nav.querySelector(`a[href="#${id}"]`)).map(([id]) => links.get(id)));
  }
  return ms;
}

/** What the report is about: the input's name, or how many inputs. */
export function reportTitle(result) {
  const d = artifactJSON(result, 'diff.json');
  if (d?.a && d?.b) return `${d.a.name.split(/[\\/]/).pop()} vs ${d.b.name.split(/[\\/]/).pop()}`;
  // The files that were read name the report; an unreadable one comes last.
  const files = [...(result.files ?? [])].sort((a, b) => (a.kind === 'unknown') - (b.kind === 'unknown'));
  const names = files.map((f) => f.name.split(/[\\/]/).pop());
  if (!names.length) return 'gputriage report';
  if (names.length === 1) return names[0];
  return `${names[0]} + ${names.length - 1} more`;
}

let renderRun = null;
const SLICE_MS = 8;
const FRAME_AFTER = new Set(['summary', 'kernels']);

// After the next frame (its style, layout and paint) has run; a timer
// stands in where no frame comes (a hidden tab).
function nextFrame() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => { if (!done) { done = true; resolve(); } };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 100);
  });
}

// A macrotask boundary (paint and input may run): scheduler.yield where the
// browser has it, else a MessageChannel hop (no 4 ms timer clamp).
function nextTask() {
  if (globalThis.scheduler?.yield) return globalThis.scheduler.yield();
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(null);
  });
}

function renderText(result) {
  const md = ['profile_summary.md', 'crash_summary.md'].map((n) => [n, artifactText(result, n)]).filter(([, t]) => t);
  if (!md.length) return null;
  return h('section.card#text', { 'aria-label': 'text summaries' },
    md.map(([n, t]) => h('details', h('summary.mono', n), h('pre.code', t))));
}
