// Export: each artifact byte-identical to the CLI's file of the same name,
// all of them as one zip, and (in the page) the report as one offline HTML.
import { h, section } from './dom.js';
import { bytes } from './format.js';
import { zip } from '../zip.js';

const MIME = { '.json': 'application/json', '.md': 'text/markdown' };
let urls = [];

function blobURL(blob) {
  const u = URL.createObjectURL(blob);
  urls.push(u);
  return u;
}

const idle = (f) => (globalThis.requestIdleCallback ? requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 50));

/** Base name for the bundle downloads, from the first input file. */
export function stem(result) {
  const n = result.files?.[0]?.name ?? 'gputriage';
  const base = n.split(/[\\/]/).pop().replace(/\.gz$/i, '').replace(/\.(json|log|txt)$/i, '');
  return (base.replace(/[^\w.+-]+/g, '_') || 'gputriage').slice(0, 80);
}

/**
 * @param {object} result the module's result
 * @param {(() => Blob)|null} saveReport builds the offline HTML (page only)
 */
export function renderExport(result, saveReport) {
  for (const u of urls) URL.revokeObjectURL(u);
  urls = [];
  const arts = result.artifacts ?? [];
  if (!arts.length) return null;
  const enc = new TextEncoder();
  const base = stem(result);
  // Each link's Blob (and the size beside it) is made in idle time after the
  // report shows, or at the click if that comes first: nothing the first
  // paint needs.
  const links = arts.map((a) => {
    const size = h('span.dim');
    const link = h('a.dl.mono', { href: '#', download: a.name }, a.name);
    const make = () => {
      if (link.getAttribute('href') !== '#') return;
      const data = enc.encode(a.text);
      const type = MIME[a.name.slice(a.name.lastIndexOf('.'))] ?? 'text/plain';
      link.href = blobURL(new Blob([data], { type }));
      size.textContent = ` ${bytes(data.length)}`;
    };
    link.addEventListener('click', make);
    idle(make);
    return h('li', link, size);
  });
  const zipLink = h('a.dl.button', { href: '#', download: `${base}.gputriage.zip` }, 'All as .zip');
  // Build the zip on first use; later clicks reuse the URL.
  zipLink.addEventListener('click', () => {
    if (zipLink.getAttribute('href') === '#') {
      zipLink.href = blobURL(zip(arts.map((a) => ({ name: a.name, data: a.text }))));
    }
  });
  let saveBtn = null;
  if (saveReport) {
    saveBtn = h('a.dl.button', { href: '#', download: `${base}.gputriage.html`, title: 'one HTML file that reopens offline with these views' }, 'Save report');
    saveBtn.addEventListener('click', () => {
      if (saveBtn.getAttribute('href') === '#') saveBtn.href = blobURL(saveReport());
    });
  }
  return section('export', 'Export',
    h('div.toolbar', zipLink, saveBtn, h('span.dim', 'files are named and byte-identical to `gputriage -o DIR`')),
    h('ul.artifacts', links),
  );
}
