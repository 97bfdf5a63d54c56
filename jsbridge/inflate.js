// Gunzip with the browser's DecompressionStream, bounded. It inflates each
// chunk written to it whole before its reader sees a byte, and File.stream()
// hands over chunks of up to a few MiB: one 1 MB chunk of a gzip bomb became
// 1 GiB of output at once, and the compressed count the ratio guard reads
// (file_read) had already reached the end of the file, so the guard let
// ~200 MB through (37 s in the page; the CLI stops after 64 MiB in 0.8 s).
// Fed in SLICE-byte pieces, pulled only when the inflater wants more, each
// piece makes at most SLICE × 1032 bytes (deflate's maximum ratio) and the
// count stays within a few pieces of what was really inflated, as the CLI's.

/** Compressed bytes per piece handed to DecompressionStream (≤ 16.1 MiB out). */
export const SLICE = 16 << 10;

/**
 * stream's bytes in pieces of at most SLICE, pulled on demand; onRead(n)
 * is called with each piece's size as it is handed on (the compressed count).
 * @param {ReadableStream<Uint8Array>} stream
 * @param {(n: number) => void} [onRead]
 */
export function sliced(stream, onRead) {
  const r = stream.getReader();
  let cur = null;
  let off = 0;
  return new ReadableStream({
    async pull(ctl) {
      while (!cur || off >= cur.length) {
        const { done, value } = await r.read();
        if (done) { ctl.close(); return; }
        cur = value;
        off = 0;
      }
      const piece = cur.subarray(off, off + SLICE);
      off += piece.length;
      onRead?.(piece.length);
      ctl.enqueue(piece);
    },
    cancel(reason) { return r.cancel(reason); },
  }, { highWaterMark: 0 });
}

/**
 * The gunzipped bytes of a stream of gzip bytes (see above).
 * @param {ReadableStream<Uint8Array>} stream
 * @param {(n: number) => void} [onRead] compressed bytes handed to the inflater
 */
export function gunzip(stream, onRead) {
  return sliced(stream, onRead).pipeThrough(new DecompressionStream('gzip'));
}
