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
// Layering (issue 18, being moved to incrementally): extractors → facts →
// rules → advice. An extractor is a pure function from text to a typed fact
// (file, node, pid, address, reason …) that never decides a class
// (rocrfacts.go: extractVMFault, extractMemoryError; regaddr.go: register
// values per kernel); a rule turns facts into findings and names what
// defeats it (apply* in rocrfacts.go, faultKernelByRegisters, the help-text,
// world-size, child-failure and reset-debris defeaters; interleave.go
// reads a kernel name spliced by several writers back from all its copies);
// advice is built in
// one place from the finding and the facts in hand (nextsteps.go,
// evidence.go), every input value quoted with internal/quote. Older parsers
// still write into the builder directly.
//
// The grammars and the crash-class table follow docs/crash-formats.md of the
// shared project documentation.
package crash
