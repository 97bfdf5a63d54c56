package crash

import "strings"

// A logger record that embeds a traceback prints its prefix once: SGLang's
// "[2025-04-27 07:30:56 TP0] Scheduler hit an exception: Traceback (most
// recent call last):" is followed by the frames and the exception line with
// no prefix (sgl-project/sglang#5775, #36377). Those lines are the record's,
// so they carry its rank: the HIP error at the bottom is TP0's.
//
// The carry ends at the next line with a prefix of its own or after
// recordRankMax lines (a traceback longer than that is rare, and lines no
// parser wants are never seen here, so the bound keeps a stale rank from
// reaching unrelated text).
const recordRankMax = 80

// carryRecordRank updates the file's carried rank from l (prefixed: rest is
// shorter than raw) and gives an unprefixed line the rank of the record it
// continues.
func (f *fileState) carryRecordRank(l *line, raw, rest string) {
	if len(rest) < len(raw) {
		f.recRank, f.recLine = -1, 0
		if l.rank >= 0 && strings.Contains(rest, "Traceback (most recent call last):") {
			f.recRank, f.recLine = l.rank, l.no
		}
		return
	}
	if f.recLine > 0 && l.rank < 0 && l.no > f.recLine && l.no-f.recLine <= recordRankMax {
		l.rank = f.recRank
	}
}
