package crash

import "strings"

// PyTorch builds the DataLoader's death message as "DataLoader worker (pid
// N) is killed by signal: " + strsignal(sig) + ". " (torch/csrc/DataLoader.cpp,
// pytorch/pytorch#25730), one line; a terminal or a reporter that wraps it
// leaves the signal on the next line, which alone names nothing.
const loaderDeathHead = "is killed by signal:"

// loaderWrap holds a DataLoader death message cut after "by signal:".
type loaderWrap struct {
	head string
	file int
	no   int
}

// extractLoaderWrapHead reports whether t is the message cut before its
// signal (the line ends with "is killed by signal:").
func extractLoaderWrapHead(t string) bool {
	return strings.Contains(t, "DataLoader worker") && strings.HasSuffix(strings.TrimSpace(t), loaderDeathHead)
}

// extractOMPIWrapHead reports whether t is Open MPI's death notice cut
// before its signal: PRRTE's help text and a terminal both break it after
// "exited on" or "exited" ("… on node cpu155 exited on" / "signal 4
// (Illegal instruction)."), so the line alone names no signal (ompi.go).
func extractOMPIWrapHead(t string) bool {
	t = strings.TrimSpace(t)
	return strings.Contains(t, "noticed that process rank") && (strings.HasSuffix(t, " exited on") || strings.HasSuffix(t, " exited"))
}

// join returns the message whole when l is the line right after the
// cut head; the head is spent either way.
func (w *loaderWrap) join(l *line) (string, bool) {
	if w.head == "" {
		return "", false
	}
	head := w.head
	w.head = ""
	if l.file != w.file || l.no != w.no+1 {
		return "", false
	}
	return strings.TrimSpace(head) + " " + strings.TrimSpace(l.text), true
}
