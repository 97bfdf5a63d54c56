// Package crash turns GPU crash and hang evidence (runtime logs, kernel
// logs, debugger and profiler text dumps) into a diagnosis: crash classes,
// the faulting kernel, the reason and what it means, addresses, nodes,
// ranks, evidence lines and next steps.
//
// Input is pushed as bytes, file by file, in chunks of any size (see
// Session). Every line is normalised (ANSI codes, carriage-return debris and
// known line prefixes removed) and handed to one small parser per format;
// a one-pass keyword prefilter (prefilter.go) hands each line only to the
// parsers that can use it, so lines that match nothing cost one scan and no
// allocation.
// Parsers keep only bounded state, so logs of hundreds of megabytes are
// processed in constant memory. The package does no host I/O and compiles
// for GOOS=wasip1.
//
// The grammars and the crash-class table follow docs/crash-formats.md of the
// shared project documentation.
package crash
