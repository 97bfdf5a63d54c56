// The Worker's SQLite: the page's jsbridge/sqlite.js over SQLite's own wasm
// build (imported as a compiled module: workerd and Cloudflare compile no
// wasm from bytes at run time), with the CLI's queries. worker/sqlite.go
// calls globalThis.gputriageSQLRows(bytes) and gets {rows, error}: the
// whole row stream, and SQLite's words if the database could not be read
// (after the rows read so far). Bundled into out/sqlite.mjs by worker/build.
import sqliteWasm from './sqlite3.wasm';
import progressWasm from './progress.wasm';
import { sqlite } from '../jsbridge/sqlite.js';
import queries from '../analyzer/rocprof/queries.json';

globalThis.gputriageSQLRows = async (bytes) => {
  const sq = await sqlite(sqliteWasm, progressWasm); // a fresh heap per database
  const db = sq.database(bytes.length);
  db.write(bytes);
  const parts = [];
  let n = 0;
  let error = '';
  try {
    db.rows(queries, (b) => { parts.push(b.slice()); n += b.length; });
  } catch (err) {
    error = err?.message ?? String(err);
  }
  const rows = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { rows.set(p, o); o += p.length; }
  return { rows, error };
};
