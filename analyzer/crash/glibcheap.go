package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// glibc's allocator checks its heap on free/malloc and, finding it
// corrupted, prints one line (malloc_printerr) and aborts the process: a
// host-side memory bug — double free, use after free, an overflow into a
// chunk header — in the process or a library it loaded, never a GPU fault.
// Newer glibc prints the message alone, older ones inside "*** Error in
// `prog': … ***":
//
//	free(): invalid pointer
//	*** Error in `/usr/bin/python2.7': free(): invalid pointer: 0x00007f801fcdbb80 ***
//	double free or corruption (!prev)
//
// Anchored at the line start (after a log prefix): prose that quotes the
// message is none.
var reGlibcHeap = lazyre.New(`^(?:\*\*\* Error in ` + "`" + `[^']*': )?(free\(\): (?:invalid pointer|invalid size|invalid next size \((?:fast|normal)\)|double free detected in tcache 2)|double free or corruption \((?:out|!prev|fasttop|top)\)|munmap_chunk\(\): invalid pointer|malloc\(\): (?:corrupted top size|memory corruption|unaligned tcache chunk detected)|corrupted size vs\. prev_size|corrupted double-linked list|realloc\(\): invalid (?:pointer|next size))`)

// glibcHeapWords gate the exit parser for these lines (exitKeywords).
var glibcHeapWords = []string{"free(): ", "double free or corruption", "munmap_chunk(): ", "malloc(): ", "corrupted size vs", "corrupted double-linked", "realloc(): "}

// extractGlibcHeapAbort returns glibc's heap-check message on t.
func extractGlibcHeapAbort(t string) (string, bool) {
	if !containsAny(t, glibcHeapWords...) {
		return "", false
	}
	m := reGlibcHeap.FindStringSubmatch(strings.TrimSpace(t))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// applyGlibcHeapAbort: the host heap is corrupted and glibc aborted the
// process → host_segfault (the host crash class), with SIGABRT as its signal.
func (s *Session) applyGlibcHeapAbort(l *line, msg string) {
	a := s.b.add(s, ClassHostSegfault, l, 0.7)
	a.setStr(&a.f.Signal, "SIGABRT")
	a.detail("glibc_heap_check", msg)
	a.addReason("glibc found the host heap corrupted (" + msg + ") and aborted the process: a host-side memory bug (double free, use after free, overflow), not a GPU fault")
}
