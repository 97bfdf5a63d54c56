// Package perfetto rewrites a PyTorch/Kineto chrome-trace so that Perfetto
// shows every GPU slice (gputriage perfetto-fix).
//
// Perfetto's JSON importer requires the X slices of one (pid,tid) track to
// nest: a slice that starts inside another must end inside it. GPU streams
// break that rule with programmatic dependent launch (PDL) on Hopper and
// Blackwell and with profiler boundary noise (b200: 74 crossings of up to
// 3.744 µs), and Perfetto then drops or displaces the crossing slices.
//
// The Fixer works on the trace bytes in two streaming passes and never holds
// the document. Pass 1 records, per track, the kernel, memcpy, memset,
// cuda_sync and gpu_user_annotation slices (current and legacy category
// names; vendor-agnostic, nothing keys on CUDA-only args), sorts them as
// Perfetto does (start ascending, longer first) and finds every slice that
// crosses the innermost open slice. Each crossing slice gets a synthetic
// lane on the same pid; lanes are reused greedily, so their number is the
// track's maximum crossing depth, and each lane gets an integer tid that no
// event of the trace uses. Pass 2 re-reads the same bytes and writes them
// unchanged except for the tid of the moved slices and of the flow ends
// ("f", same ts and id as the slice's correlation) that bind to them, plus
// one thread_name metadata event per lane ("stream 7 (overlap 1)") appended
// to traceEvents. ts and dur are never touched. A trace without crossings is
// written back byte for byte; the output is deterministic.
package perfetto
