package collectives

import "testing"

// A rank whose profiler window opened while two all_to_alls were queued (no
// launch in the trace) and the next two were launched 190 ms ahead, before the
// first two ran (the seventh blind set's cut rank: HTA's 16-rank TorchRec trace).
func TestSortIssueLaunchlessQueued(t *testing.T) {
	ops := []*Op{
		{Seq: 4, Launch: 767_000, Start: 960_000, Stream: 363},
		{Seq: 5, Launch: 768_000, Start: 961_000, Stream: 363},
		{Seq: 2, Launch: -1, Start: 775_000, Stream: 363},
		{Seq: 3, Launch: -1, Start: 776_000, Stream: 363},
	}
	sortIssue(ops)
	for i, want := range []int64{2, 3, 4, 5} {
		if ops[i].Seq != want {
			t.Fatalf("order %d: Seq %d, want %d", i, ops[i].Seq, want)
		}
	}
	// on two streams the starts say nothing of the issue order: by launch, else start
	ops = []*Op{
		{Seq: 1, Launch: 500, Start: 900, Stream: 1},
		{Seq: 0, Launch: -1, Start: 700, Stream: 2},
		{Seq: 2, Launch: 600, Start: 650, Stream: 1},
	}
	sortIssue(ops)
	for i, want := range []int64{1, 2, 0} {
		if ops[i].Seq != want {
			t.Fatalf("two streams, order %d: Seq %d, want %d", i, ops[i].Seq, want)
		}
	}
}
