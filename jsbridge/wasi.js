// A minimal wasi_snapshot_preview1 for gputriage.wasm. The reactor declares
// ~16 WASI imports but bulk data never goes through WASI: inputs are pushed
// into module memory by the host (docs/abi.md). So only what the Go runtime
// really calls is implemented; every other declared import answers ENOSYS.

const ESUCCESS = 0;
const EBADF = 8;
const ENOSYS = 52;

/** Thrown by proc_exit: the instance is dead afterwards. */
export class WasiExit extends Error {
  constructor(code) {
    super(`module exited with code ${code}`);
    this.code = code;
  }
}

/**
 * @param {WebAssembly.Module} module
 * @param {{stderr?: (line: string) => void}} [io]
 * @returns {{imports: WebAssembly.Imports, bind: (memory: WebAssembly.Memory) => void}}
 */
export function wasi(module, io = {}) {
  let memory;
  const view = () => new DataView(memory.buffer); // memory.grow detaches old views
  const out = io.stderr ?? ((s) => console.warn('[gputriage.wasm]', s));
  const dec = new TextDecoder();
  let pending = '';

  const impl = {
    // Pointer arguments arrive as signed i32: `>>> 0` (memory past 2 GiB).
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      if (fd !== 1 && fd !== 2) return EBADF;
      iovs >>>= 0; iovsLen >>>= 0; nwrittenPtr >>>= 0;
      const dv = view();
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = dv.getUint32(iovs + i * 8, true);
        const len = dv.getUint32(iovs + i * 8 + 4, true);
        pending += dec.decode(new Uint8Array(memory.buffer, ptr, len), { stream: true });
        n += len;
      }
      // Line-buffer so a panic's trace reaches the console as whole lines.
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        out(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      dv.setUint32(nwrittenPtr, n, true);
      return ESUCCESS;
    },
    random_get(ptr, len) {
      ptr >>>= 0; len >>>= 0;
      // getRandomValues refuses more than 64 KiB per call.
      for (let off = 0; off < len; off += 65536) {
        crypto.getRandomValues(new Uint8Array(memory.buffer, ptr + off, Math.min(65536, len - off)));
      }
      return ESUCCESS;
    },
    clock_time_get(id, _precision, timePtr) {
      // 0 = realtime, else monotonic; both in ns. performance.now() is µs-precise at best.
      const ns = id === 0
        ? BigInt(Date.now()) * 1_000_000n
        : BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
      view().setBigUint64(timePtr >>> 0, ns, true);
      return ESUCCESS;
    },
    clock_res_get(_id, resPtr) {
      view().setBigUint64(resPtr >>> 0, 1000n, true);
      return ESUCCESS;
    },
    args_sizes_get(countPtr, sizePtr) {
      const dv = view();
      dv.setUint32(countPtr >>> 0, 0, true);
      dv.setUint32(sizePtr >>> 0, 0, true);
      return ESUCCESS;
    },
    environ_sizes_get(countPtr, sizePtr) {
      return impl.args_sizes_get(countPtr, sizePtr);
    },
    // Go's syscall package walks preopened dirs from fd 3 at init until
    // EBADF; any other answer (ENOSYS included) makes it panic.
    fd_prestat_get: () => EBADF,
    // Only the runtime's usleep polls (one clock subscription, on spin and
    // panic paths). A worker cannot sleep without SharedArrayBuffer, so
    // report every subscription as fired at once.
    poll_oneoff(inPtr, outPtr, n, neventsPtr) {
      inPtr >>>= 0; outPtr >>>= 0; n >>>= 0; neventsPtr >>>= 0;
      const dv = view();
      for (let i = 0; i < n; i++) {
        const s = inPtr + i * 48, e = outPtr + i * 32;
        dv.setBigUint64(e, dv.getBigUint64(s, true), true); // userdata
        dv.setUint16(e + 8, ESUCCESS, true); // error
        dv.setUint8(e + 10, dv.getUint8(s + 8)); // event type
      }
      dv.setUint32(neventsPtr, n, true);
      return ESUCCESS;
    },
    args_get: () => ESUCCESS,
    environ_get: () => ESUCCESS,
    sched_yield: () => ESUCCESS,
    proc_exit(code) {
      if (pending) out(pending);
      pending = '';
      throw new WasiExit(code);
    },
  };

  const ns = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'wasi_snapshot_preview1' || imp.kind !== 'function') continue;
    ns[imp.name] = impl[imp.name] ?? (() => ENOSYS);
  }
  return {
    imports: { wasi_snapshot_preview1: ns },
    bind(m) { memory = m; },
  };
}
