// Entry of a saved report: the same renderer over the artifacts embedded in
// the file itself. No module, no worker, no network.
import { renderReport } from './render/report.js';

const data = JSON.parse(document.getElementById('gputriage-data').textContent);
renderReport(document.getElementById('report'), data.result, { stats: data.stats });
document.getElementById('status').textContent = `saved report · ${data.saved}`;
document.body.dataset.state = 'done';
