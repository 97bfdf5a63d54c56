// Entry of a saved report: the same renderer over the artifacts embedded in
// the file itself. No module, no worker, no network.
import { renderReport } from './render/report.js';

const data = JSON.parse(document.getElementById('gputriage-data').textContent);
document.getElementById('status').textContent = `saved report · ${data.saved}`;
renderReport(document.getElementById('report'), data.result, { stats: data.stats })
  .then(() => { document.body.dataset.state = 'done'; });
