package main

import (
	"fmt"
	"os"

	"github.com/gputriage/gputriage/analyzer/roofline"
)

// readModelConfig reads --model-config and checks that it is a config.json
// the roofline can use: a file that does not parse, or that names none of
// the dimensions the roofline takes from it, is a usage error naming the
// file (the analyzer would otherwise ignore it silently).
func (f *flags) readModelConfig() error {
	b, err := os.ReadFile(f.modelConfigFile)
	if err != nil {
		return fmt.Errorf("--model-config %s: %v", f.modelConfigFile, unwrapPathErr(err))
	}
	if _, err := roofline.ParseModelConfig(b); err != nil {
		return fmt.Errorf("--model-config %s: %v", f.modelConfigFile, err)
	}
	f.modelConfig = b
	return nil
}
