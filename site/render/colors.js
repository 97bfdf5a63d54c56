// Category colours: assigned in order of first appearance across the whole
// report, so a category keeps its colour in every stage and in the legend.
const PALETTE = 12;
const seen = new Map();

export function catClass(name) {
  if (!seen.has(name)) seen.set(name, seen.size % PALETTE);
  return `c${seen.get(name)}`;
}

export function resetColors() {
  seen.clear();
}
