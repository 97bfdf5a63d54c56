package crash

import "testing"

// rocgdb hang-dump rows in real wordings; each row names its source.
func TestExtractGdbAttach(t *testing.T) {
	for _, c := range []struct {
		src, line string
		pid       int
		ok        bool
	}{
		// gdb's own attach banner and the echoed attach command of a hang script (seed 003 R3)
		{"gdb attach", "Attaching to process 4242", 4242, true},
		{"gdb attach program", "Attaching to program: /usr/bin/python3.10, process 31337", 31337, true},
		{"echoed command", "$ timeout 90 rocgdb -p 2920 -batch -ex 'info dispatches'", 2920, true},
		// https://github.com/ROCm/ROCgdb/issues/3 and /issues/11: a failed attach names no attached process
		{"ROCgdb#3", "warning: Could not attach to process 72409", 0, false},
		{"ROCgdb#11", "Could not attach to process 107215 (rc=-2)", 0, false},
	} {
		pid, ok := extractGdbAttach(c.line)
		if pid != c.pid || ok != c.ok {
			t.Errorf("%s: got %d %v", c.src, pid, ok)
		}
	}
}

func TestExtractLaneRow(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      laneRow
		ok        bool
	}{
		// ROCgdb docs "info lanes" (../shared/testdata/crash/SOURCES.md fx05)
		{"ROCgdb docs", "* 0    A     AMDGPU Lane 1:2:1:1/0 (0,0,0)[0,0,0] kern () at /home/user/saxpy.cpp:7", laneRow{wave: "1:2:1:1", workgroup: "0,0,0", x: 0, frame: "kern () at /home/user/saxpy.cpp:7"}, true},
		{"inactive lane", "  33   I     AMDGPU Lane 1:2:1:1/33 (0,0,0)[33,0,0]", laneRow{inactive: true, wave: "1:2:1:1", workgroup: "0,0,0", x: 33}, true},
		{"no state column", "  5    AMDGPU Lane 1:4:1:377/5 (1291,0,0)[5,0,0] 0x7f00 in k ()", laneRow{wave: "1:4:1:377", workgroup: "1291,0,0", x: 5, frame: "0x7f00 in k ()"}, true},
		// a lane switch banner is not an info lanes row (https://github.com/llvm/llvm-project/issues/170211, s18)
		{"llvm#170211 switch", "[Switching to thread 6, lane 0 (AMDGPU Lane 1:1:1:8/0 (0,0,0)[224,0,0])]", laneRow{}, false},
	} {
		got, ok := extractLaneRow(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
}
