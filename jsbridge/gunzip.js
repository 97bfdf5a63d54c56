// The page's gzip fallback. DecompressionStream stops at the first gzip
// member and, on a bad CRC, ISIZE or trailing junk, errors and drops the
// chunks it had decompressed but not handed over yet (a different amount on
// every run). Then the module gunzips the file itself, with the CLI's Go
// code (analyzer/gunzip.go): every member, every byte up to the damage, the
// CLI's message — skipping the `fed` bytes it already has.

/**
 * @param {{call: Function, feed: Function}} m the module instance
 * @param {File} file
 * @param {number} fed decompressed bytes already pushed for this file
 * @param {(chunk: Uint8Array, read: number) => any} onChunk as pushFile's
 */
export async function gunzipInModule(m, file, fed, onChunk) {
  m.call('file_gzip', fed % 2 ** 32, Math.floor(fed / 2 ** 32));
  const reader = file.stream().getReader();
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (await onChunk(value, read) === true) { // damaged past repair, or a limit
      reader.cancel().catch(() => {});
      break;
    }
  }
}
