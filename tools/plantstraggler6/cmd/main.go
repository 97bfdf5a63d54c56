// Command plantstraggler6 plants stragglers into real multi-rank traces (the
// sixth blind set of issue 19), keys them by the definitions from the
// written files, and scores gputriage's collectives.json and ranks.json.
//
//	go run ./tools/plantstraggler6/cmd list BASE                 instances of a base (plan writing)
//	go run ./tools/plantstraggler6/cmd plant -work DIR [CASE…]   plant and key (DIR/traces, DIR/keys.json)
//	go run ./tools/plantstraggler6/cmd run -bin G -work DIR      plant, run `G breakdown`, score
//	go run ./tools/plantstraggler6/cmd score -work DIR [-results R] score existing outputs
//
// Traces are read from $SHARED_TESTDATA, else ../shared/testdata.
package main

import (
	"os"

	ps "github.com/gputriage/gputriage/tools/plantstraggler6"
)

func main() { os.Exit(ps.Sixth.Main(os.Args[1:])) }
