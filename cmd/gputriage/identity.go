package main

import (
	"fmt"
	"os"

	"github.com/gputriage/gputriage/analyzer/identity"
)

// readRun completes the identity given by flags with a --run file (a JSON
// object with seed 004's field names); a flag wins over the file.
func (f *flags) readRun() error {
	b, err := os.ReadFile(f.runFile)
	if err != nil {
		return fmt.Errorf("--run %s: %v", f.runFile, unwrapPathErr(err))
	}
	id, err := identity.ParseRun(b)
	if err != nil {
		return fmt.Errorf("--run %s: %v", f.runFile, err)
	}
	f.run.Fill(id)
	return nil
}
