// Category colours: one palette for every report. A category's colour is
// fixed by its name (the analyzer's categories, analyzer/kernels), so gemm is
// the same blue in every stage, every report and the timeline; a name the
// palette does not know gets a slot from a hash of its name. The colours are
// the --c0…--c13 variables of style.css (docs/page.md lists them).
export const CATEGORIES = ['gemm', 'attention', 'communication', 'moe', 'norm', 'elementwise', 'memory',
  'reduction', 'activation', 'quantization', 'rope', 'index', 'conv', 'other'];
const SLOT = new Map(CATEGORIES.map((c, i) => [c, i]));

/** The colour slot (0…13) of a category. */
export function catSlot(name) {
  if (SLOT.has(name)) return SLOT.get(name);
  let x = 0;
  for (const ch of String(name)) x = (x * 31 + ch.codePointAt(0)) >>> 0;
  return x % CATEGORIES.length;
}

export function catClass(name) {
  return `c${catSlot(name)}`;
}

/** Kept for callers: colours no longer depend on what a report saw first. */
export function resetColors() {}
