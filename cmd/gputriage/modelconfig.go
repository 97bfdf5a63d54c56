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
	c, err := roofline.ParseModelConfig(b)
	if err != nil {
		return fmt.Errorf("--model-config %s: %v", f.modelConfigFile, err)
	}
	if *c == (roofline.ModelConfig{}) {
		return fmt.Errorf("--model-config %s: none of hidden_size, num_attention_heads, num_key_value_heads, num_experts / num_local_experts, num_experts_per_tok, torch_dtype, quantization_config (not a Hugging Face config.json?)", f.modelConfigFile)
	}
	f.modelConfig = b
	return nil
}
