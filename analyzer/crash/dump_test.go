package crash

import (
	"os"
	"testing"
)

// TestDump prints the diagnosis of CRASH_DUMP=path (manual inspection).
func TestDump(t *testing.T) {
	p := os.Getenv("CRASH_DUMP")
	if p == "" {
		t.Skip("set CRASH_DUMP=file")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d := diagnoseWhole(p, data)
	if os.Getenv("CRASH_MD") != "" {
		os.Stdout.Write(d.Markdown())
		return
	}
	os.Stdout.Write(d.JSON())
}

// TestDumpAll prints class, summary and kernel of every test file (CRASH_ALL=1).
func TestDumpAll(t *testing.T) {
	if os.Getenv("CRASH_ALL") == "" {
		t.Skip("set CRASH_ALL=1")
	}
	dirs := answerSets
	if d := os.Getenv("CRASH_DIR"); d != "" {
		dirs = []string{d}
	}
	for _, dir := range dirs {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() == "answers.json" || e.Name() == "SOURCES.md" || e.Name() == "crash_meta.tsv" {
				continue
			}
			data, _ := os.ReadFile(dir + "/" + e.Name())
			d := diagnoseWhole(e.Name(), data)
			t.Logf("== %s", e.Name())
			for _, f := range d.Findings {
				t.Logf("   %s [%s] %s | kernel=%q meaning=%q notes=%q", f.Class, f.ConfidenceLevel, f.Summary, clip(f.Kernel, 80), f.KernelMeaning, f.Notes)
			}
		}
	}
}
