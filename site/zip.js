// A STORE-only zip writer: the artifacts are small text files, so
// compression buys little and a dependency buys nothing.

import { sliced } from '../jsbridge/inflate.js';

// A deflate entry is bounded as a gzip file is (--max-ratio, docs/limits.md):
// past RATIO_AFTER inflated bytes, an entry expanding more than RATIO× its
// compressed size is refused. Inflated whole, a 1 MB entry was 1 GiB at once.
export const RATIO = 200;
export const RATIO_AFTER = 64 << 20;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function dosTime(d) {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/**
 * @param {{name: string, data: Uint8Array|string}[]} files
 * @param {Date} [when]
 * @returns {Blob} application/zip
 */
export function zip(files, when = new Date()) {
  const enc = new TextEncoder();
  const { time, date } = dosTime(when);
  const parts = [];
  const central = [];
  let offset = 0;
  for (const f of files) {
    const name = enc.encode(f.name);
    const data = typeof f.data === 'string' ? enc.encode(f.data) : f.data;
    const crc = crc32(data);
    // Shared fields of the local and central headers, from "version needed".
    const common = (dv, o) => {
      dv.setUint16(o, 20, true); // version needed: 2.0
      dv.setUint16(o + 2, 0x0800, true); // flags: names are UTF-8
      dv.setUint16(o + 4, 0, true); // method: store
      dv.setUint16(o + 6, time, true);
      dv.setUint16(o + 8, date, true);
      dv.setUint32(o + 10, crc, true);
      dv.setUint32(o + 14, data.length, true);
      dv.setUint32(o + 18, data.length, true);
      dv.setUint16(o + 22, name.length, true);
      dv.setUint16(o + 24, 0, true); // extra length
    };
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    common(local, 4);
    parts.push(local, name, data);

    const cen = new DataView(new ArrayBuffer(46));
    cen.setUint32(0, 0x02014b50, true);
    cen.setUint16(4, 20, true); // version made by
    common(cen, 6);
    // comment length, disk, internal attrs, external attrs: all 0
    cen.setUint32(42, offset, true);
    central.push(cen, name);
    offset += 30 + name.length + data.length;
  }
  const cenSize = central.reduce((n, p) => n + p.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, cenSize, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}

/**
 * The files of a zip (an artifact zip: this page's "All as .zip", or any
 * zip of a run's files), read through its central directory; STORE and
 * deflate entries (deflate through DecompressionStream('deflate-raw')).
 * Directories are skipped; a CRC mismatch is an error naming the entry.
 * @param {Blob} blob
 * @returns {Promise<{name: string, data: Uint8Array}[]>}
 */
export async function unzip(blob) {
  const buf = new Uint8Array(await blob.arrayBuffer());
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (dv.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error('not a zip (no end of central directory)');
  const count = dv.getUint16(eocd + 10, true);
  let p = dv.getUint32(eocd + 16, true);
  const dec = new TextDecoder();
  const out = [];
  for (let k = 0; k < count; k++) {
    if (dv.getUint32(p, true) !== 0x02014b50) throw new Error('zip: broken central directory');
    const method = dv.getUint16(p + 10, true);
    const crc = dv.getUint32(p + 16, true);
    const csize = dv.getUint32(p + 20, true);
    const nlen = dv.getUint16(p + 28, true), xlen = dv.getUint16(p + 30, true), clen = dv.getUint16(p + 32, true);
    const local = dv.getUint32(p + 42, true);
    const name = dec.decode(buf.subarray(p + 46, p + 46 + nlen));
    p += 46 + nlen + xlen + clen;
    if (name.endsWith('/')) continue;
    const start = local + 30 + dv.getUint16(local + 26, true) + dv.getUint16(local + 28, true);
    const raw = buf.subarray(start, start + csize);
    let data;
    if (method === 0) data = raw;
    else if (method === 8) data = await inflate(name, raw);
    else throw new Error(`zip: ${name}: compression method ${method} is not supported`);
    if (crc32(data) !== crc) throw new Error(`zip: ${name}: CRC mismatch`);
    out.push({ name, data });
  }
  return out;
}

/**
 * A deflate entry's bytes, fed to the inflater in small pieces (inflate.js)
 * and stopped by the ratio guard.
 * @param {string} name
 * @param {Uint8Array} raw
 */
async function inflate(name, raw) {
  const r = sliced(new Blob([raw]).stream()).pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts = [];
  let n = 0;
  for (;;) {
    const { done, value } = await r.read();
    if (done) break;
    n += value.length;
    if (n > RATIO_AFTER && n > RATIO * raw.length) {
      await r.cancel();
      throw new Error(`zip: ${name}: inflates to more than ${RATIO}× its compressed size of ${raw.length} bytes (--max-ratio): not read`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}
