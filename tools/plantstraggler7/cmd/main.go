// Command plantstraggler7 plants, keys and scores the seventh blind straggler set
// of issue 19 (list, plant, run, score: as tools/plantstraggler6/cmd).
package main

import (
	"os"

	ps7 "github.com/gputriage/gputriage/tools/plantstraggler7"
)

func main() { os.Exit(ps7.Seventh.Main(os.Args[1:])) }
