// Package identity holds what ties a profile to the experiment it came from:
// seed 004's linkage and comparison fields, as the user gives them (flags, a
// --run file, the page's form) or as the serving framework wrote them beside
// the traces (SGLang's server_args.json, vLLM's config dump). Values given
// by the user always win over values read from a sidecar.
package identity

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"encoding/json"
)

// Identity is one run's identity. Empty strings, nil slices and nil
// pointers are unknown.
type Identity struct {
	ExperimentID        string `json:"experiment_id,omitempty"`
	TrialID             string `json:"trial_id,omitempty"`
	BaseImage           string `json:"base_image,omitempty"`
	ResourceClass       string `json:"resource_class,omitempty"`
	GPUDeviceIDs        []int  `json:"gpu_device_ids,omitempty"` // the experiment's allocation, as given
	GPUClocksMHz        *int   `json:"gpu_clocks_mhz,omitempty"`
	PreflightPassed     *bool  `json:"preflight_passed,omitempty"`
	ServerFlags         string `json:"server_flags,omitempty"`
	BenchmarkConfigHash string `json:"benchmark_config_hash,omitempty"`
	ModelName           string `json:"model_name,omitempty"`
	ProfileStage        string `json:"profile_stage,omitempty"`
	// TPSize is the tensor-parallel size the server reports (sidecar only).
	TPSize int `json:"tp_size,omitempty"`
}

// Fields are the user-settable field names, in the order seed 004 lists them
// (the --run file's keys and the CLI's flags without "--").
var Fields = []string{"experiment_id", "trial_id", "base_image", "resource_class", "gpu_device_ids",
	"gpu_clocks_mhz", "preflight_passed", "server_flags", "benchmark_config_hash", "model_name", "profile_stage"}

// Set assigns one field from its text form (a flag value).
func (id *Identity) Set(field, v string) error {
	switch field {
	case "experiment_id":
		id.ExperimentID = v
	case "trial_id":
		id.TrialID = v
	case "base_image":
		id.BaseImage = v
	case "resource_class":
		id.ResourceClass = v
	case "server_flags":
		id.ServerFlags = v
	case "benchmark_config_hash":
		id.BenchmarkConfigHash = v
	case "model_name":
		id.ModelName = v
	case "profile_stage":
		id.ProfileStage = v
	case "gpu_device_ids":
		ids, err := ParseIDs(v)
		if err != nil {
			return err
		}
		id.GPUDeviceIDs = ids
	case "gpu_clocks_mhz":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return fmt.Errorf("gpu_clocks_mhz: %q is not a positive whole number of MHz", v)
		}
		id.GPUClocksMHz = &n
	case "preflight_passed":
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("preflight_passed: %q is not true or false", v)
		}
		id.PreflightPassed = &b
	default:
		return fmt.Errorf("unknown run identity field %q (want one of %s)", field, strings.Join(Fields, ", "))
	}
	return nil
}

// ParseIDs reads "0,1,2" (spaces allowed).
func ParseIDs(v string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("gpu_device_ids: %q is not a comma-separated list of GPU indices", v)
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseRun reads a --run file: a JSON object with the field names of
// Fields. Unknown keys are an error (a misspelt key must not silently leave
// a field unknown).
func ParseRun(b []byte) (Identity, error) {
	var id Identity
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return id, fmt.Errorf("not a JSON object: %v", err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := bytes.TrimSpace(raw[k])
		if !slices.Contains(Fields, k) {
			return id, fmt.Errorf("unknown field %q (want %s)", k, strings.Join(Fields, ", "))
		}
		if string(v) == "null" {
			continue
		}
		var err error
		switch k {
		case "gpu_device_ids":
			var ids []int
			if err = json.Unmarshal(v, &ids); err == nil {
				for _, n := range ids {
					if n < 0 {
						err = fmt.Errorf("negative index %d", n)
					}
				}
				id.GPUDeviceIDs = ids
			} else {
				var s string
				if json.Unmarshal(v, &s) == nil {
					err = id.Set(k, s)
				}
			}
		case "gpu_clocks_mhz":
			var n int
			if err = json.Unmarshal(v, &n); err == nil {
				id.GPUClocksMHz = &n
			}
		case "preflight_passed":
			var p bool
			if err = json.Unmarshal(v, &p); err == nil {
				id.PreflightPassed = &p
			}
		default:
			var s string
			if err = json.Unmarshal(v, &s); err == nil {
				err = id.Set(k, s)
			}
		}
		if err != nil {
			return id, fmt.Errorf("%s: %v", k, err)
		}
	}
	return id, nil
}

// Fill sets every field of id that is unknown from o (the user's values
// first, then sidecars).
func (id *Identity) Fill(o Identity) {
	fillS := func(d *string, s string) {
		if *d == "" {
			*d = s
		}
	}
	fillS(&id.ExperimentID, o.ExperimentID)
	fillS(&id.TrialID, o.TrialID)
	fillS(&id.BaseImage, o.BaseImage)
	fillS(&id.ResourceClass, o.ResourceClass)
	fillS(&id.ServerFlags, o.ServerFlags)
	fillS(&id.BenchmarkConfigHash, o.BenchmarkConfigHash)
	fillS(&id.ModelName, o.ModelName)
	fillS(&id.ProfileStage, o.ProfileStage)
	if id.GPUDeviceIDs == nil {
		id.GPUDeviceIDs = slices.Clone(o.GPUDeviceIDs)
	}
	if id.GPUClocksMHz == nil && o.GPUClocksMHz != nil {
		n := *o.GPUClocksMHz
		id.GPUClocksMHz = &n
	}
	if id.PreflightPassed == nil && o.PreflightPassed != nil {
		b := *o.PreflightPassed
		id.PreflightPassed = &b
	}
	if id.TPSize == 0 {
		id.TPSize = o.TPSize
	}
}

// Key is a canonical text of the identity, for run ids.
func (id Identity) Key() string {
	b, _ := json.Marshal(id)
	return string(b)
}
