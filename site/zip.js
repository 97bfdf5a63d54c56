// A STORE-only zip writer: the artifacts are small text files, so
// compression buys little and a dependency buys nothing.

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
