package analyzer

import (
	"strings"
	"testing"
)

// A level-10 kernel-API dump folder holds metadata.json beside torch.save
// tensors (zip archives, seed 000's "inputs.pt + metadata.json"): the
// tensors are part of that evidence, listed as "tensor", not an unreadable
// input that turns a diagnosis into exit 2. A zip outside such a folder is
// still refused.
func TestDumpFolderTensors(t *testing.T) {
	meta := []byte(`{"function_name": "sglang.custom_op.mla_fwd", "process_id": 7, "execution_status": "inputs_saved",
 "input_metadata": {"arg_0": {"type": "torch.Tensor", "shape": [4, 8], "dtype": "torch.bfloat16", "device": "cuda:0"}},
 "input_tensor_keys": ["arg_0"]}`)
	zip := []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00" + strings.Repeat("\x00", 40))
	dir := "dumps/20260101_000000_000_pid7_sglang.custom_op.mla_fwd_call0001"
	r := runJob(t, Options{Command: "diagnose"},
		[]string{dir + "/metadata.json", dir + "/inputs.pt", "elsewhere/weights.pt"},
		[][]byte{meta, zip, zip})
	kinds := map[string]string{}
	for _, f := range r.Files {
		kinds[f.Name] = f.Kind + "|" + f.Problem
	}
	if got := kinds[dir+"/inputs.pt"]; got != "tensor|" {
		t.Errorf("inputs.pt beside the dump's metadata: %q, want tensor with no problem", got)
	}
	if got := kinds["elsewhere/weights.pt"]; !strings.HasPrefix(got, "unknown|a zip archive") {
		t.Errorf("a zip in no dump folder: %q, want unknown (a zip archive)", got)
	}
	if r.ExitCode != ExitUsage || strings.Contains(r.Error, "inputs.pt") || !strings.Contains(r.Error, "weights.pt") {
		t.Errorf("exit %d, error %q: want exit 2 naming weights.pt only", r.ExitCode, r.Error)
	}
	r = runJob(t, Options{Command: "diagnose"},
		[]string{dir + "/metadata.json", dir + "/inputs.pt"}, [][]byte{meta, zip})
	if r.ExitCode != ExitOK {
		t.Errorf("dump folder alone: exit %d (%s), want 0", r.ExitCode, r.Error)
	}
}
