package collectives

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/trace"
	cifix "github.com/gputriage/gputriage/internal/fixture"
)

// TestPlantMatrix runs testdata/plantcase.py (planting, and the key it
// computes independently) and testdata/plantcompare.py (the 2 % checks and
// whether each plant is named, with the reason its mode implies) over the
// real DLRM ranks: planted ranks × sizes (small, the instance's natural
// skew, larger than the step's largest natural skew) × kinds (extra GPU
// work before the collective, a host that launches it late). Every case
// must hold every instance within 2 % of the key and name its large
// plants with the right reason; the matrix of outcomes is logged. Running
// the scripts here keeps them from rotting.
func TestPlantMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("18 planted cases through python3")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		cifix.Missing(t, "python3: %v", err)
	}
	var files []string
	for _, rel := range dlrmFiles(t) {
		files = append(files, filepath.Join(fixture.Shared, rel))
	}
	base := Match(summaries(t, dlrmFiles(t)...))
	natural := func(kind string, index int) int64 {
		for _, in := range base.Instances {
			if in.Kind == kind && in.Index == index {
				return int64(in.Skew) / 1000
			}
		}
		t.Fatalf("no %s #%d", kind, index)
		return 0
	}
	var worst int64
	for _, in := range base.Instances {
		worst = max(worst, int64(in.Skew)/1000)
	}
	large := 2*worst + 1000 // µs, past the step's largest natural skew
	type cell struct{ named, absorbed, missed, reasonOK int }
	tally := map[string]*cell{}
	dir := t.TempDir()
	n := 0
	for _, at := range []struct {
		rank  int
		kind  string
		index int
	}{{0, "allreduce", 1}, {3, "allreduce", 2}, {7, "sendrecv", 4}} {
		rank := at.rank
		{
			for _, size := range []string{"small", "near", "large"} {
				delay := map[string]int64{"small": 100, "near": max(natural(at.kind, at.index), 50), "large": large}[size]
				for _, mode := range []string{"gpu", "host"} {
					n++
					name := fmt.Sprintf("r%d_%s%d_%s_%s", rank, at.kind, at.index, size, mode)
					spec := map[string]any{"plants": []map[string]any{{"mode": mode, "rank": rank, "delay_us": delay, "pg": "", "kind": at.kind, "index": at.index}}}
					out := runPlantCase(t, py, filepath.Join(dir, name), spec, files, large)
					c := tally[size+" "+mode]
					if c == nil {
						c = &cell{}
						tally[size+" "+mode] = c
					}
					for _, l := range strings.Split(out, "\n") {
						if !strings.HasPrefix(l, "PLANT ") {
							continue
						}
						switch {
						case strings.Contains(l, ": named"):
							c.named++
							if strings.Contains(l, "reason ok") {
								c.reasonOK++
							}
						case strings.Contains(l, ": absorbed"):
							c.absorbed++
						case strings.Contains(l, ": missed"):
							c.missed++
						}
					}
				}
			}
		}
	}
	for _, k := range []string{"small gpu", "small host", "near gpu", "near host", "large gpu", "large host"} {
		c := tally[k]
		t.Logf("DLRM %-10s named %d (reason right %d), absorbed %d, missed %d", k, c.named, c.reasonOK, c.absorbed, c.missed)
	}
	if c := tally["large gpu"]; c.named != 3 || c.reasonOK != 3 {
		t.Errorf("large GPU-busy plants: %+v of 3", *c)
	}
	if c := tally["large host"]; c.named != 3 || c.reasonOK != 3 {
		t.Errorf("large host-late plants: %+v of 3", *c)
	}
	t.Logf("%d cases", n)
}

// runPlantCase plants spec into files (plantcase.py), analyses the planted
// traces, and compares (plantcompare.py); a FAIL fails the test.
func runPlantCase(t *testing.T, py, dir string, spec map[string]any, files []string, requireUS int64) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, _ := json.Marshal(spec)
	specPath := filepath.Join(dir, "spec.json")
	os.WriteFile(specPath, sb, 0o644)
	script := func(name string) string { return filepath.Join("testdata", name) }
	cmd := exec.Command(py, append([]string{script("plantcase.py"), specPath, dir}, files...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plantcase.py %s: %v\n%s", dir, err, b)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "traces", "*.json.gz"))
	var sums []*Summary
	for _, p := range traces {
		st := trace.NewStore()
		r := st.NewReader(filepath.Base(p))
		r.Write(fixture.ReadPath(t, p))
		if f := r.Close(); !f.Complete {
			t.Fatalf("%s: %s", p, f.Problem)
		}
		var d struct {
			Rank  int `json:"rank"`
			World int `json:"world_size"`
		}
		json.Unmarshal(st.Files[0].Header["distributedInfo"], &d)
		s := Extract(st, 0, d.Rank, d.World, callsite.NewJoins(st))
		if b, err := strconv.ParseInt(strings.Trim(string(st.Files[0].Header["baseTimeNanoseconds"]), `" `), 10, 64); err == nil {
			s.ClockBase = b
		}
		sums = append(sums, s)
	}
	res := Match(sums)
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "collectives.json"), []byte(res.JSON("gputriage", "test")), 0o644)
	os.WriteFile(filepath.Join(out, "ranks.json"), []byte(res.RanksJSON("gputriage", "test")), 0o644)
	b, err := exec.Command(py, script("plantcompare.py"), dir, out, "--require-named-us", strconv.FormatInt(requireUS, 10)).CombinedOutput()
	if err != nil {
		t.Fatalf("plantcompare.py %s: %v\n%s", dir, err, b)
	}
	if !strings.Contains(string(b), "\nPASS") {
		t.Errorf("%s:\n%s", filepath.Base(dir), b)
	}
	return string(b)
}
