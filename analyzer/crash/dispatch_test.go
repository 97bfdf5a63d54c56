package crash

import (
	"strings"
	"testing"
)

// panicky is a reader that fails on one wording, as the compute-sanitizer
// reader did on its API-error line (an index past the match).
type panicky struct{}

func (panicky) beginFile(*Session) {}
func (panicky) endFile()           {}
func (panicky) gate() uint64       { return ^uint64(0) }
func (panicky) active(int) bool    { return true }
func (panicky) line(l *line) {
	if strings.Contains(l.text, "BOOM") {
		var m []string
		_ = m[7]
	}
}

// A reader's failure costs its line, never the diagnosis: the other
// readers still see it and every later line, and the input names the line.
func TestReaderFaultCostsOneLine(t *testing.T) {
	s := New()
	s.parsers = append(s.parsers, panicky{})
	s.BeginFile("a.log")
	s.Write([]byte("starting\nBOOM: RuntimeError: CUDA error: an illegal memory access was encountered\nMemory access fault by GPU node-2 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present or supervisor privilege.\n"))
	s.EndFile()
	d := s.Diagnosis()
	if hasClass(d, ClassGPUMemoryFault) == nil {
		t.Errorf("classes %v: the fault on line 3 was lost", classesOf(d))
	}
	if len(d.Inputs) != 1 || !strings.Contains(d.Inputs[0].Problem, "line 2:") {
		t.Errorf("inputs %+v: want line 2 named as a reader failure", d.Inputs)
	}
}
