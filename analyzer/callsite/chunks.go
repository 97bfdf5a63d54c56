package callsite

import "runtime"

// ChunkOps is how many records Chunks hands f at a time.
const ChunkOps = 4096

// Chunks calls f(lo, hi) over [0, n) in consecutive ranges of ChunkOps.
//
// This is for the module: V8 (the page's Chromium, node) runs a wasm
// function in its baseline (Liftoff) code until it has run long enough,
// then compiles it optimized in the background for its next call; a call
// already running never switches. An analysis' loop over a million GPU
// ops runs once per job, so it ran start to end in baseline code, 2–3×
// slower, and its optimized code (compiled meanwhile, at 50–120 ms of CPU
// for the largest) was never used. As a function called per chunk it runs
// optimized once that code is ready. Natively it costs a call per chunk.
// Not inlined: f would be inlined into the caller's loop with it.
//
// Between chunks it yields (runtime.Gosched): the module is one thread
// that never preempts, so a collection started inside one long loop of
// finish() could not finish until the loop ended — everything allocated
// meanwhile was kept as live, and the heap grew 4–5× past its goal (200 k
// distinct op names: 550 MB during the overlap analysis, 140 MB natively).
//
//go:noinline
func Chunks(n int, f func(lo, hi int)) {
	for lo := 0; lo < n; lo += ChunkOps {
		f(lo, min(lo+ChunkOps, n))
		runtime.Gosched()
	}
}
