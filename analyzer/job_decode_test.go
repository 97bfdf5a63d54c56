package analyzer

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
)

// Issue 13 item 10 at the job level: logs in UTF-16, behind a NUL run
// (logrotate copytruncate) or with CR-only line ends are logs, not binary,
// and keep the fault; docker inspect JSON goes to the crash analysis.
func TestJobDecodesLogs(t *testing.T) {
	fault := "Memory access fault by GPU node-2 (Agent handle: 0x55ac14d27600) on address 0x7f9587e00000. Reason: Page not present or supervisor privilege.\n"
	u16 := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune("loading model\r\n" + fault)) {
		u16 = append(u16, byte(u), byte(u>>8))
	}
	cases := map[string][]byte{
		"utf16.log": u16,
		"nul.log":   append(bytes.Repeat([]byte{0}, 70000), fault...),
		"cr.log":    []byte("start\rstep 1\r" + strings.TrimSuffix(fault, "\n") + "\rexit\r"),
		"inspect.json": []byte(`[
    {
        "Id": "5b1e0c7a",
        "State": {"Status": "exited", "OOMKilled": true, "ExitCode": 137}
    }
]`),
	}
	for name, data := range cases {
		j, err := New(Options{Command: "diagnose"})
		if err != nil {
			t.Fatal(err)
		}
		j.BeginFile(name)
		for len(data) > 0 { // 1 KiB chunks: the sniffing must not depend on them
			n := min(1024, len(data))
			j.Write(data[:n])
			data = data[n:]
		}
		j.EndFile()
		r := j.Finish()
		d, _ := r.Artifact("crash_diagnosis.json")
		want := "gpu_memory_fault"
		if name == "inspect.json" {
			want = "host_oom_kill"
		}
		if r.ExitCode != ExitOK || r.Files[0].Kind != "log" || !strings.Contains(d, `"class": "`+want+`"`) {
			t.Errorf("%s: exit %d kind %s problem %q\n%s", name, r.ExitCode, r.Files[0].Kind, r.Files[0].Problem, d)
		}
	}
	// NUL bytes alone stay unreadable
	j, _ := New(Options{Command: "diagnose"})
	j.BeginFile("zeros.bin")
	j.Write(make([]byte, 4096))
	j.EndFile()
	if r := j.Finish(); r.ExitCode != ExitUsage {
		t.Errorf("NUL-only file: exit %d", r.ExitCode)
	}
}

// Issue 22 item 13: product names for --target-arch.
func TestTargetProduct(t *testing.T) {
	for in, want := range map[string][2]string{"MI355X": {"gfx950", "MI355X"}, "MI350X": {"gfx950", "MI350X"}, "H100": {"sm90", "H100"}, "gfx942": {"gfx942", ""}} {
		o := Options{Command: "breakdown", TargetArch: in}
		if err := o.normalize(); err != nil || o.TargetArch != want[0] || o.TargetProduct != want[1] {
			t.Errorf("%s: %q %q %v, want %v", in, o.TargetArch, o.TargetProduct, err, want)
		}
	}
	o := Options{Command: "breakdown", TargetArch: "MI999"}
	if err := o.normalize(); err == nil {
		t.Error("MI999 accepted")
	}
}
