// Package callsite holds what every analysis uses to tie GPU work back to
// code: the nesting index over a thread's intervals, the choice of the
// Python frame that names a call site, and the stage (prefill, decode) an
// annotation or a file name announces.
package callsite
