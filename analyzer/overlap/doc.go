// Package overlap finds overlap opportunities in a GPU profile (gputriage
// overlap, and the Overlap Opportunity Table of triage), the way the
// upstream SGLang profiler skill does it (trace-format.md §12.3), ROCm- and
// CUDA-aware.
//
// Two traces of the same workload play two roles. The formal trace (graph
// replay on, the real serving configuration) gives the timing: a sweep line
// over the starts and ends of every kernel, copy and fill on every stream
// of its heaviest GPU decides, per segment, whether an op was exclusive or
// hidden by work on another stream (hidden by compute or by
// communication), and totals busy time, ≥ 2-stream overlap, peak concurrent
// streams and the communication ∩ compute-kernel overlap. The mapping trace
// (graph off) gives the CPU side: kernel → launch → cpu_op → Python scope.
// Graph-replayed kernels of the formal trace carry no External id, so their
// source is carried over by sequence alignment: within each replay, the
// j-th occurrence of a canonical kernel takes the source of the j-th
// occurrence of the same canonical kernel in the best-matching mapping step
// (the step annotation whose kernel multiset overlaps the replay's most);
// kernels without such a partner take their name's dominant source.
//
// Rows follow §12.3 exactly: headroom (≥ 5 µs, ≥ 45 % exclusive, ranked by
// exclusive time × category weight, compute only as fallback) and
// low-roi-hidden (elementwise/memory, ≥ 5 µs, ≥ 65 % hidden), a dependency
// signal from the nearest same-stream neighbours, and priorities P1–P5.
// Beyond §12.3, "dominant" rows name the compute kernels holding ≥ 5 % of
// a stage (top 3), which the headroom rule only takes as a fallback, with
// what overlap could buy (overlap_gain_us): on a stage with one active
// stream nothing unless communication moves to a side stream, otherwise
// the exposed non-compute time that could move under the kernel. Every row
// carries that bound (a headroom row's is its exclusive time).
// Everything is integer nanoseconds and sorted with explicit tie-breaks, so
// the output is deterministic.
package overlap
