package collectives

import (
	"reflect"
	"testing"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/internal/fixture"
	"github.com/gputriage/gputriage/analyzer/limits"
)

// ExtractFirst keeps Extract's first ops and counts the rest; the totals
// and steps still cover every collective.
func TestExtractFirst(t *testing.T) {
	rel := dlrmFiles(t)[0]
	st := fixture.Load(t, rel)
	full := Extract(st, 0, 0, 8, callsite.NewJoins(st))
	if len(full.Ops) < 4 {
		t.Fatalf("%s: %d collectives", rel, len(full.Ops))
	}
	keep := len(full.Ops) / 3
	cut := ExtractFirst(st, 0, 0, 8, callsite.NewJoins(st), keep)
	if cut.left != len(full.Ops)-keep || !reflect.DeepEqual(cut.Ops, full.Ops[:keep]) {
		t.Errorf("kept %d, left %d of %d", len(cut.Ops), cut.left, len(full.Ops))
	}
	c := *cut
	c.Ops, c.left = full.Ops, 0
	if !reflect.DeepEqual(&c, full) {
		t.Errorf("totals or steps differ:\n%+v\n%+v", c, *full)
	}
}

// Match's bound says the same of summaries extracted whole and of
// summaries extracted up to each rank's share: the ops it keeps, partial,
// and how many it left out.
func TestBoundPrecut(t *testing.T) {
	keep := limits.CollectiveOps / 2
	mk := func(rank, n int) *Summary {
		s := &Summary{Rank: rank, Ops: make([]Op, n)}
		for i := range s.Ops {
			s.Ops[i] = Op{Seq: int64(i), Start: int64(i)}
		}
		return s
	}
	whole := []*Summary{mk(0, keep+500), mk(1, keep+7)}
	pre := []*Summary{mk(0, keep), mk(1, keep)}
	pre[0].left, pre[1].left = 500, 7
	a, noteA := bound(whole)
	b, noteB := bound(pre)
	if noteA == "" || noteA != noteB {
		t.Errorf("notes:\n%s\n%s", noteA, noteB)
	}
	for i := range a {
		if len(a[i].Ops) != keep || !reflect.DeepEqual(a[i].Ops, b[i].Ops) || !a[i].Partial || !b[i].Partial {
			t.Errorf("rank %d: %d/%d ops, partial %v/%v", i, len(a[i].Ops), len(b[i].Ops), a[i].Partial, b[i].Partial)
		}
	}
	// a pre-cut rank at exactly its share is still partial
	one, note := bound([]*Summary{mk(0, keep), func() *Summary { s := mk(1, keep); s.left = 1; return s }()})
	if note == "" || one[0].Partial || !one[1].Partial {
		t.Errorf("one left out: %q, partial %v %v", note, one[0].Partial, one[1].Partial)
	}
}
