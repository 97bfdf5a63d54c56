package collectives

import (
	"cmp"
	"slices"
)

// sortIssue puts one rank's ops of a process group and kind in issue order:
// by host launch, else kernel start. A trace whose profiler window opened
// while collectives were queued holds their kernels without their launches
// (launched before the window: issue unknown, at most their start), beside
// later ones launched ahead of them — by launch they would sort after those.
// A process group's collectives run on its stream in the order they were
// issued, so where some lack a launch and all share one stream, the stream's
// order (kernel start) is the issue order.
func sortIssue(ops []*Op) {
	byStart := false
	for _, o := range ops {
		if o.Launch < 0 {
			byStart = true
		}
		if o.Stream != ops[0].Stream {
			byStart = false
			break
		}
	}
	if byStart {
		slices.SortStableFunc(ops, func(a, b *Op) int { return cmp.Compare(a.Start, b.Start) })
		return
	}
	slices.SortStableFunc(ops, func(a, b *Op) int { return cmp.Compare(issue(a), issue(b)) })
}
