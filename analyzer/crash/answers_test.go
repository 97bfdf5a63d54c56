package crash

import (
	"github.com/gputriage/gputriage/internal/fixture"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/gputriage/gputriage/internal/crashkey"
)

// answerSets are the shared answer keys (never edited by this package).
var answerSets = []string{
	"../../../shared/testdata/crash",
	"../../../shared/testdata/gpu/crash",
}

// diagnoseChunked pushes data in random chunk sizes (1..4096, fixed seed) to
// prove that chunk boundaries never change the result.
func diagnoseChunked(name string, data []byte, seed int64) *Diagnosis {
	r := rand.New(rand.NewSource(seed))
	s := New()
	s.BeginFile(name)
	for len(data) > 0 {
		n := 1 + r.Intn(4096)
		if r.Intn(4) == 0 {
			n = 1 + r.Intn(16)
		}
		if n > len(data) {
			n = len(data)
		}
		s.Write(data[:n])
		data = data[n:]
	}
	s.EndFile()
	return s.Diagnosis()
}

func diagnoseWhole(name string, data []byte) *Diagnosis {
	s := New()
	s.BeginFile(name)
	s.Write(data)
	s.EndFile()
	return s.Diagnosis()
}

func TestAnswers(t *testing.T) {
	for _, dir := range answerSets {
		ans, err := os.ReadFile(filepath.Join(dir, "answers.json"))
		if err != nil {
			fixture.Missing(t, "answer key not available: %v", err)
		}
		for _, file := range crashkey.Entries(ans) {
			t.Run(file, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				whole := diagnoseWhole(file, data).JSON()
				if err := crashkey.Check(ans, file, whole); err != nil {
					t.Errorf("%v\n%s", err, whole)
				}
				for seed := int64(1); seed <= 3; seed++ {
					got := diagnoseChunked(file, data, seed).JSON()
					if string(got) != string(whole) {
						t.Fatalf("chunked (seed %d) result differs from whole-file result", seed)
					}
				}
			})
		}
	}
}
