package crash

import (
	"strings"
	"testing"
)

// failure_reason names the log by its file name, not the caller's path to
// it: the same crash analysed from two trial folders reads the same
// (issue 22 item 13).
func TestFailureReasonFileName(t *testing.T) {
	log := "Memory access fault by GPU node-2 (Agent handle: 0x55d1c0a0) on address 0x7f3a00000000. Reason: Page not present or supervisor privilege.\n"
	reason := func(name string) string {
		s := New()
		s.BeginFile(name)
		s.Write([]byte(log))
		s.EndFile()
		return s.Diagnosis().FailureReason
	}
	a, b := reason("/runs/trial-0017/rank3/server.log"), reason(`C:\other\place\server.log`)
	if a != b {
		t.Errorf("failure_reason differs by folder:\n%s\n%s", a, b)
	}
	if !strings.Contains(a, "[server.log:1]") || strings.Contains(a, "trial-0017") {
		t.Errorf("failure_reason %q: want the file name [server.log:1], no folder", a)
	}
}
