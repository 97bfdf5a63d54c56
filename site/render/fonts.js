// Font warm-up. A Chromium trace of a drop showed the longest main-thread
// tasks were layouts that ran no script, and they were slow because of fonts.
// The first text laid out in a font at a size and weight the page has not
// used yet costs 5-40 ms here, and up to ~170 ms on a loaded 2-core machine
// (measured per size: the same font again costs ~0.3 ms). Two examples:
//   - the Cancel button's <kbd> (10px mono) made the drop handler's forced
//     layout (cancel.focus()) a 60-170 ms task;
//   - the report's first frames needed a dozen new fonts at once (badges,
//     table heads, KPIs, the roofline's labels).
// So while the page waits for the module and the user, it lays out one
// sample per font the page uses, each in an idle task of its own. The
// browser test checks that every font in a rendered report is in FONTS.
const MONO = 'var(--mono-font)';
const SANS = null; // the body's font
const SVG_FONT = 'system-ui, sans-serif'; // style.css: svg.roofline labels
const CANVAS_FONT = 'monospace'; // lanes.js: the canvas lanes

// [size px, weight, family]: the progress bar's fonts first, then the report's
// (13px 400 sans, the body's, is laid out with the page already).
export const FONTS = [
  [10, 400, MONO], [12, 400, MONO], [13, 400, SANS],
  [12, 400, SANS], [11, 400, SANS], [12, 600, SANS], [15, 600, SANS], [14, 600, SANS], [13, 700, SANS],
  [11, 400, MONO], [12, 600, MONO], [11, 600, SANS], [11, 600, MONO], [12, 700, SANS], [11, 700, SANS],
  [14, 700, SANS], [12, 700, MONO], [13, 700, MONO], [15, 700, MONO], [11, 400, SVG_FONT],
  [16, 700, SANS], [14, 400, SANS], // the verdict: its heading and lead takeaways
];

// Printable ASCII plus the non-ASCII characters the report prints (escaped:
// the built page must stay pure ASCII).
const ASCII = String.fromCharCode(...Array.from({ length: 95 }, (_, i) => 32 + i));
const OTHER = '\u00b7\u2014\u2026\u2265\u2264\u00b5\u2192\u2013\u25be\u25b4\u2229\u2212\u03a3\u00d7';
const SAMPLE = ASCII + OTHER;

const idle = (f) => (globalThis.requestIdleCallback ? requestIdleCallback(f, { timeout: 500 }) : setTimeout(f, 0));

/**
 * Lay out a sample of each font, one per idle task, in a hidden box that
 * stays in the document (it keeps the fonts in use).
 * @returns {Promise<void>} when all are laid out
 */
export function warmFonts(list = FONTS) {
  const box = document.createElement('div');
  box.className = 'font-warm';
  box.setAttribute('aria-hidden', 'true');
  document.body.append(box);
  // Each font in two idle tasks: the ASCII sample, then the characters
  // other fonts supply (a fallback font is looked up and loaded for them).
  // As one task, the first bold mono sample took 80-113 ms on a quiet
  // 2-core machine (a long task while the user may drop a file); split,
  // the longest warm-up task measured 64-72 ms.
  const steps = list.flatMap((f) => [[...f, ASCII], [...f, OTHER]]);
  let i = 0;
  return new Promise((resolve) => {
    const step = () => {
      if (i === steps.length) {
        // The canvas resolves its font on its own path.
        const g = document.createElement('canvas').getContext('2d');
        if (g) { g.font = `11px ${CANVAS_FONT}`; g.measureText(SAMPLE); }
        resolve();
        return;
      }
      const [size, weight, family, text] = steps[i++];
      const s = document.createElement('span');
      s.style.fontSize = `${size}px`;
      s.style.fontWeight = String(weight);
      if (family) s.style.fontFamily = family;
      s.textContent = text;
      box.append(s);
      void s.offsetWidth; // lay it out in this task, not in a later frame's
      idle(step);
    };
    idle(step);
  });
}
