package main

import (
	"testing"

	ps7 "github.com/gputriage/gputriage/tools/plantstraggler7"
)

// The seventh blind planted-straggler set of issue 19 (testdata/straggler-blind7/README.md):
// a 16-rank A100 TorchRec job made from one real rank of a 16-rank run (three process
// groups, all_to_all, reduce_scatter, all_gather, all_reduce), planted and keyed by
// tools/plantstraggler6's library before the analyzer's code was read.
const stragglerBlind7Golden = "../../testdata/golden/straggler_blind7_score.txt"

// stragglerBlind7Cases: the control, a host straggler and a GPU straggler. Each case
// plants 16 ranks (minutes on a loaded machine); `go run ./tools/plantstraggler7/cmd run`
// runs all of them.
var stragglerBlind7Cases = []string{
	"nq16_ctrl", "nq16_host_a2a_r13", "nq16_rs_longer_r11",
}

func TestStragglerBlind7Score(t *testing.T) {
	if testing.Short() {
		t.Skip("plants 3 cases of 16 ranks (minutes)")
	}
	scorePlantedSet(t, ps7.Seventh, stragglerBlind7Cases, "../../testdata/straggler-blind7/keys.plants.json", stragglerBlind7Golden, "seventh")
}
