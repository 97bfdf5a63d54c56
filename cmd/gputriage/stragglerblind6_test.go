package main

import (
	"testing"

	ps "github.com/gputriage/gputriage/tools/plantstraggler6"
)

// The sixth blind planted-straggler set of issue 19 (testdata/straggler-blind6/README.md):
// stragglers planted by tools/plantstraggler6's monotone clock maps into jobs made from one
// real rank of 8-rank runs, keyed from the written files by the definitions before
// the analyzer's code was read. The golden holds the score, misses included.
const stragglerBlind6Golden = "../../testdata/golden/straggler_blind6_score.txt"

// stragglerBlind6Cases: the B200 job (symmetric-memory all-reduces, one stream). The td8
// cases write 8 × 20 MB of JSON each; `go run ./tools/plantstraggler6/cmd run` runs them.
var stragglerBlind6Cases = []string{
	"b8_ctrl", "b8_host_r3", "b8_gemm_r6", "b8_extra_r1", "b8_ag_r7", "b8_two_r2_r5", "b8_slow",
}

func TestStragglerBlind6Score(t *testing.T) {
	scorePlantedSet(t, ps.Sixth, stragglerBlind6Cases, "../../testdata/straggler-blind6/keys.plants.json", stragglerBlind6Golden, "sixth")
}
