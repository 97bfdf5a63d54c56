package collectives

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// p2pDir is "send" or "recv" for PyTorch's point-to-point Collective names
// (send, recv, _send, isend …), "" for collectives.
func p2pDir(coll string) string {
	l := strings.TrimLeft(strings.ToLower(coll), "_i")
	switch l {
	case "send", "recv":
		return l
	}
	return ""
}

// p2pSide is one rank's point-to-point op.
type p2pSide struct {
	rank int
	op   *Op
}

// matchP2P pairs every send with the recv of its peer. A trace says the
// direction (Collective name) but not the peer, so a send is paired with
// the unmatched recv of another rank whose kernel overlaps it the most (a
// transfer keeps both kernels running: NCCL's SendRecv kernel on each
// side); a send no recv overlaps (a small message the sender could post
// ahead) goes to the next unmatched recv after it on the rank it has
// been paired with most. The pairs are instances of kind sendrecv with two
// ranks, indexed in the sender's issue order within the process group;
// the receiver's wait is how long the late sender made it wait.
func matchP2P(pg string, sends, recvs []p2pSide) (rows [][2]p2pSide, note string) {
	slices.SortStableFunc(sends, func(a, b p2pSide) int {
		return cmp.Or(cmp.Compare(issue(a.op), issue(b.op)), cmp.Compare(a.rank, b.rank))
	})
	slices.SortStableFunc(recvs, func(a, b p2pSide) int {
		return cmp.Or(cmp.Compare(a.op.Start, b.op.Start), cmp.Compare(a.rank, b.rank))
	})
	used := make([]bool, len(recvs))
	peers := map[[2]int]int{}
	var left []int
	for i, s := range sends {
		best, bestOv := -1, int64(0)
		for j, r := range recvs {
			if used[j] || r.rank == s.rank {
				continue
			}
			if r.op.Start > s.op.End {
				break
			}
			if ov := min(s.op.End, r.op.End) - max(s.op.Start, r.op.Start); ov > bestOv || ov == bestOv && best < 0 && ov >= 0 {
				best, bestOv = j, ov
			}
		}
		if best < 0 {
			left = append(left, i)
			continue
		}
		used[best] = true
		peers[[2]int{s.rank, recvs[best].rank}]++
		rows = append(rows, [2]p2pSide{s, recvs[best]})
	}
	unpaired := 0
	for _, i := range left {
		s := sends[i]
		peer, n := -1, 0
		for k, c := range peers {
			if k[0] == s.rank && (c > n || c == n && k[1] < peer) {
				peer, n = k[1], c
			}
		}
		found := false
		for j, r := range recvs {
			if !used[j] && r.rank == peer && r.op.End >= s.op.Start {
				used[j], found = true, true
				rows = append(rows, [2]p2pSide{s, r})
				break
			}
		}
		if !found {
			unpaired++
		}
	}
	for _, u := range used {
		if !u {
			unpaired++
		}
	}
	slices.SortStableFunc(rows, func(a, b [2]p2pSide) int {
		return cmp.Or(cmp.Compare(issue(a[0].op), issue(b[0].op)), cmp.Compare(a[0].rank, b[0].rank))
	})
	if unpaired > 0 {
		note = fmt.Sprintf("%s: %d send/recv ops found no peer", groupName(pg, "sendrecv"), unpaired)
	}
	return rows, note
}
