// SQLite on the page (and in the Worker): SQLite's own wasm build
// (`@sqlite.org/sqlite-wasm`, pinned to the SQLite version the CLI's
// ncruces/go-sqlite3 embeds) driven through its C API with a small import
// shim instead of the package's 650 KB JavaScript wrapper. Only an
// in-memory, read-only database (sqlite3_deserialize) and prepared
// statements are used, so every file-system import answers ENOSYS.
//
// The database's rows go out as the row stream that internal/sqlrows writes
// for the CLI (docs/rocprof.md): the queries of analyzer/rocprof/queries.json
// whose tables exist, each row SQLite's own json_array() text — the same
// SQLite, the same bytes.

const ENOSYS = 52; // WASI errno; Emscripten's __syscall_* return it negated
const PAGE = 65536;
const MAX_PAGES = 32768; // the build's maximum: 2 GiB
const ROW = 100; // SQLITE_ROW
const DONE = 101; // SQLITE_DONE
const OPEN_READONLY = 0x1;
const OPEN_MEMORY = 0x80;
const DESERIALIZE_FREEONCLOSE = 1;
const DESERIALIZE_READONLY = 4;
const OUT = 1 << 20; // bytes handed to emit at a time

// SQLite's work budget per database, in thousands of virtual-machine steps
// (analyzer/limits.SQLiteSteps: the same numbers and words as the CLI's
// internal/sqlrows): the views queried are the database's own, and one can
// run for ever (an endless recursive CTE yields no row and never ends).
const STEPS_BASE = 131072; // limits.SQLiteStepsBase
const stepsBudget = (size, rows) => STEPS_BASE + Math.floor(size / 256) + 4 * rows;
const stepsNote = (size, rows) => `SQLite stopped after ${stepsBudget(size, rows)} thousand steps (limits.SQLiteSteps: ${STEPS_BASE} thousand plus one per 256 bytes of the file and 4 per row; ${rows} rows read): a view of the database does not end`;

/**
 * A wasm module of one function, (i32) → i32, that calls its import e.f:
 * SQLite's progress handler must be a function of its table, and a plain
 * JS function cannot be one. The Worker imports it compiled
 * (worker/build writes these bytes as progress.wasm: workerd compiles no
 * wasm at run time).
 */
export const PROGRESS_WASM = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f,
  2, 7, 1, 1, 0x65, 1, 0x66, 0, 0, 7, 5, 1, 1, 0x66, 0, 0);

/** The row stream's first line (analyzer/rocprof.RowsMagic). */
export const ROWS_MAGIC = 'gputriage-rows 1\n';

/** SQLite's file magic (16 bytes). */
export const SQLITE_MAGIC = 'SQLite format 3\0';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Whether bytes start with SQLite's file magic. */
export function isSQLite(head) {
  if (!head || head.length < SQLITE_MAGIC.length) return false;
  for (let i = 0; i < SQLITE_MAGIC.length; i++) if (head[i] !== SQLITE_MAGIC.charCodeAt(i)) return false;
  return true;
}

/**
 * A fresh SQLite instance from the compiled sqlite3.wasm.
 * @param {WebAssembly.Module} module
 * @param {WebAssembly.Module} [progress] PROGRESS_WASM compiled (compiled here when absent)
 */
export async function sqlite(module, progress) {
  const memory = new WebAssembly.Memory({ initial: 128, maximum: MAX_PAGES });
  let sq = null;
  const nosys = () => -ENOSYS;
  const env = {
    memory,
    emscripten_date_now: () => Date.now(),
    emscripten_get_now: () => performance.now(),
    emscripten_get_heap_max: () => MAX_PAGES * PAGE,
    emscripten_resize_heap(want) {
      want >>>= 0;
      const have = memory.buffer.byteLength;
      if (want > MAX_PAGES * PAGE) return 0;
      // Grow by at least a fifth, as Emscripten's own resize does, so a
      // growing database buffer does not grow page by page.
      const target = Math.min(MAX_PAGES * PAGE, Math.max(want, Math.ceil(have * 1.2)));
      try {
        memory.grow(Math.ceil((target - have) / PAGE));
        if (sq) sq.heap = null; // the old view is detached
        return 1;
      } catch {
        return 0;
      }
    },
    _tzset_js() {},
    _localtime_js() {},
    _mmap_js: nosys,
    _munmap_js: nosys,
  };
  const wasi = {
    clock_time_get(id, precision, ptr) {
      new DataView(memory.buffer).setBigUint64(ptr >>> 0, BigInt(Math.round(Date.now() * 1e6)), true);
      return 0;
    },
    environ_sizes_get(count, size) {
      const v = new DataView(memory.buffer);
      v.setUint32(count >>> 0, 0, true);
      v.setUint32(size >>> 0, 0, true);
      return 0;
    },
    environ_get: () => 0,
  };
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function') continue;
    const ns = (imports[imp.module] ??= {});
    if (imp.module === 'env') ns[imp.name] = env[imp.name] ?? nosys;
    else ns[imp.name] = wasi[imp.name] ?? (() => ENOSYS);
  }
  imports.env.memory = memory;
  const instance = await WebAssembly.instantiate(module, imports);
  const x = instance.exports;
  x.__wasm_call_ctors();
  const rc = x.sqlite3_initialize();
  if (rc !== 0) throw new Error(`sqlite3_initialize: ${rc}`);
  sq = new SQLite(x, memory);
  // the progress handler: a table slot calling sq.onProgress
  const tramp = new WebAssembly.Instance(progress ?? new WebAssembly.Module(PROGRESS_WASM), { e: { f: () => sq.onProgress() } });
  const table = x.__indirect_function_table;
  sq.progressFn = table.grow(1);
  table.set(sq.progressFn, tramp.exports.f);
  return sq;
}

export class SQLite {
  constructor(x, memory) {
    this.x = x;
    this.memory = memory;
    this.heap = null; // a view of the whole memory, dropped when it grows
    this.onProgress = () => 0;
    this.progressFn = 0;
  }

  u8() { return (this.heap ??= new Uint8Array(this.memory.buffer)); }

  /** A view of n bytes at ptr (valid until SQLite's next call). */
  bytes(ptr, n) {
    ptr >>>= 0;
    return this.u8().subarray(ptr, ptr + n);
  }

  cstr(ptr) {
    ptr >>>= 0;
    if (!ptr) return '';
    const b = this.u8();
    let e = ptr;
    while (b[e]) e++;
    return dec.decode(b.subarray(ptr, e));
  }

  /** A NUL-terminated copy of s in SQLite's heap (sqlite3_free it). */
  put(s) {
    const b = enc.encode(s);
    const p = this.x.sqlite3_malloc(b.length + 1) >>> 0;
    if (!p) throw new Error('sqlite3: out of memory');
    this.bytes(p, b.length + 1).set(b);
    this.bytes(p + b.length, 1)[0] = 0;
    return p;
  }

  /** A database file, pushed in pieces into SQLite's heap. */
  database(sizeHint = 0) { return new Database(this, sizeHint); }
}

/** The error text ncruces/go-sqlite3 gives (its Error()): "sqlite3: " and
 *  the code's text, then ": " and sqlite3_errmsg when it says more. */
function errorText(sq, db, rc) {
  const code = `sqlite3: ${sq.cstr(sq.x.sqlite3_errstr(rc))}`;
  let msg = db ? sq.cstr(sq.x.sqlite3_errmsg(db)) : '';
  if (msg.startsWith('sqlite3: ')) msg = msg.slice(9);
  if (msg.startsWith(code.slice(9))) msg = msg.slice(code.length - 9);
  if (msg.startsWith(': ')) msg = msg.slice(2);
  if (msg === 'not an error') msg = '';
  return msg ? `${code}: ${msg}` : code;
}

class Database {
  constructor(sq, sizeHint) {
    this.sq = sq;
    this.n = 0;
    this.cap = Math.max(sizeHint, 1 << 16);
    this.ptr = this.alloc(0, this.cap);
  }

  alloc(ptr, n) {
    const p = this.sq.x.sqlite3_realloc64(ptr, BigInt(n)) >>> 0;
    if (!p) throw new Error(`the database does not fit in SQLite's wasm memory (${n} bytes; at most 2 GiB)`);
    return p;
  }

  /** Append the next piece of the file. */
  write(chunk) {
    if (this.n + chunk.length > this.cap) {
      this.cap = Math.max(this.n + chunk.length, Math.ceil(this.cap * 1.5));
      this.ptr = this.alloc(this.ptr, this.cap);
    }
    this.sq.bytes(this.ptr + this.n, chunk.length).set(chunk);
    this.n += chunk.length;
  }

  /**
   * Open the file (read-only) and write its row stream: `emit(bytes)` gets
   * it in pieces of about 1 MiB (a view, valid until emit returns). Throws
   * an Error whose message the CLI gives for the same failure. The heap
   * buffer is SQLite's from here on (freed on close).
   * @param {{name: string, requires: string[], sql: string}[]} queries
   * @param {(bytes: Uint8Array) => void} emit
   * @returns {number} rows written
   */
  rows(queries, emit) {
    const { sq } = this;
    const x = sq.x;
    const pdb = x.sqlite3_malloc(4) >>> 0;
    const name = sq.put(':memory:');
    let db = 0;
    let rc = x.sqlite3_open_v2(name, pdb, OPEN_READONLY | OPEN_MEMORY, 0);
    db = new DataView(sq.memory.buffer).getUint32(pdb, true);
    x.sqlite3_free(name);
    x.sqlite3_free(pdb);
    const main = sq.put('main');
    try {
      if (rc !== 0) throw new Error(`not a readable SQLite database: ${errorText(sq, db, rc)}`);
      // A database in WAL mode (header bytes 18 and 19 = 2) cannot be
      // deserialized ("unable to open database file"); the CLI reads the
      // file alone (immutable: no -wal beside it), so it is read here in
      // rollback mode too, the same bytes otherwise.
      if (this.n >= 20) {
        const h = sq.bytes(this.ptr + 18, 2);
        if (h[0] === 2 && h[1] === 2) h[0] = h[1] = 1;
      }
      // READONLY|FREEONCLOSE: SQLite reads the bytes in place and frees them.
      rc = x.sqlite3_deserialize(db, main, this.ptr, BigInt(this.n), BigInt(this.cap), DESERIALIZE_FREEONCLOSE | DESERIALIZE_READONLY);
      this.ptr = 0;
      if (rc !== 0) throw new Error(`not a readable SQLite database: ${errorText(sq, db, rc)}`);
      // SQLite calls the handler every 1,000 steps (as ncruces/go-sqlite3's)
      const size = this.n;
      let used = 0;
      let n = 0;
      let spent = false;
      sq.onProgress = () => {
        if (!spent && ++used > stepsBudget(size, n)) spent = true;
        return spent ? 1 : 0;
      };
      x.sqlite3_progress_handler(db, 1000, sq.progressFn, 0);
      const why = (err) => (spent ? stepsNote(size, n) : err.message);
      const have = new Set();
      try {
        each(sq, db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", (s) => have.add(sq.cstr(x.sqlite3_column_text(s, 0))));
      } catch (err) {
        throw new Error(`not a readable SQLite database: ${why(err)}`);
      }
      const out = new Outbox(emit);
      out.text(ROWS_MAGIC);
      try {
        for (const q of queries) {
          if (!q.requires.every((t) => have.has(t))) continue;
          out.text(`@ ${q.name}\n`);
          try {
            each(sq, db, q.sql, (s) => {
              const p = x.sqlite3_column_text(s, 0) >>> 0;
              out.bytes(sq.bytes(p, x.sqlite3_column_bytes(s, 0)));
              out.nl();
              n++;
            });
          } catch (err) {
            throw new Error(`query ${q.name}: ${why(err)}`);
          }
        }
      } finally {
        out.flush(); // what was read goes to the module, as the CLI's
      }
      return n;
    } finally {
      x.sqlite3_free(main);
      if (this.ptr) x.sqlite3_free(this.ptr);
      this.ptr = 0;
      if (db) x.sqlite3_close_v2(db);
    }
  }

  /** Free the buffer (a file that is not read after all). */
  discard() {
    if (this.ptr) this.sq.x.sqlite3_free(this.ptr);
    this.ptr = 0;
  }
}

/** Run sql on db and call row(stmt) per result row; throws errorText. */
function each(sq, db, sql, row) {
  const x = sq.x;
  const psql = sq.put(sql);
  const pst = x.sqlite3_malloc(4) >>> 0;
  let st = 0;
  try {
    let rc = x.sqlite3_prepare_v2(db, psql, -1, pst, 0);
    st = new DataView(sq.memory.buffer).getUint32(pst, true);
    if (rc !== 0) throw new Error(errorText(sq, db, rc));
    while ((rc = x.sqlite3_step(st)) === ROW) row(st);
    if (rc !== DONE) throw new Error(errorText(sq, db, rc));
  } finally {
    if (st) x.sqlite3_finalize(st);
    x.sqlite3_free(pst);
    x.sqlite3_free(psql);
  }
}

/** Collects the stream in a 1 MiB buffer and hands it on when full. */
class Outbox {
  constructor(emit) {
    this.emit = emit;
    this.buf = new Uint8Array(OUT);
    this.n = 0;
  }

  text(s) { this.bytes(enc.encode(s)); }

  nl() {
    if (this.n === this.buf.length) this.flush();
    this.buf[this.n++] = 10;
  }

  bytes(b) {
    if (this.n + b.length > this.buf.length) {
      this.flush();
      if (b.length > this.buf.length) { this.emit(b.slice()); return; }
    }
    this.buf.set(b, this.n);
    this.n += b.length;
  }

  flush() {
    if (!this.n) return;
    this.emit(this.buf.subarray(0, this.n));
    this.n = 0;
  }
}
