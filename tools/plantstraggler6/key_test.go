package plantstraggler6

import (
	"math"
	"testing"
)

// A rank whose trace starts one instance late: matched by Seq, the instance it
// lacks has the other ranks only and every later one all three; in issue order
// the late rank's first collective would pair with its peers' first.
func TestSeqInstancesCutRank(t *testing.T) {
	c := func(rank int, seq, start float64) kColl {
		return kColl{rank: rank, pg: "0", kind: "alltoall", start: start, end: start + 10, issue: start, seq: seq}
	}
	lists := [][]kColl{
		{c(0, 4, 100), c(0, 5, 200)},
		{c(1, 4, 101), c(1, 5, 203)},
		{c(2, 5, 250)},
	}
	ins := seqInstances(lists)
	if len(ins) != 2 || len(ins[0].Ranks) != 2 || len(ins[1].Ranks) != 3 {
		t.Fatalf("instances %+v", ins)
	}
	if ins[1].Index != 1 || ins[1].LastRank != 2 || ins[1].Skew != 50 {
		t.Errorf("Seq 5: %+v", ins[1])
	}
	lists[2][0].seq = math.NaN()
	if seqInstances(lists) != nil {
		t.Error("a collective without Seq: order matching, not Seq")
	}
}

// The binary-searched step map sums the same steps as a scan.
func TestStepMapLookup(t *testing.T) {
	var m stepMap
	steps := [][2]float64{{30, 1}, {10, 2}, {20, 4}, {10, 8}}
	for _, s := range steps {
		m.add(s[0], s[1])
	}
	for _, q := range []float64{5, 10, 15, 20, 25, 30, 35} {
		at, before := 0.0, 0.0
		for _, s := range steps {
			if s[0] <= q {
				at += s[1]
			}
			if s[0] < q {
				before += s[1]
			}
		}
		if m.at(q) != at || m.before(q) != before {
			t.Errorf("t=%v: at %v before %v, want %v %v", q, m.at(q), m.before(q), at, before)
		}
	}
}
