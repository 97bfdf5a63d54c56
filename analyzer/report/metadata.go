package report

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Metadata writes profile_metadata.json: every minimum field of the
// profiling artifact contract (seed 004), null where a trace cannot know it.
func Metadata(a *Analysis) []byte {
	type fileInfo struct {
		Name      string  `json:"name"`
		Bytes     int64   `json:"bytes"`
		Events    int64   `json:"events"`
		Partial   bool    `json:"partial"`
		Problem   *string `json:"problem"`
		BadEvents int64   `json:"bad_events"`
		Source    *source `json:"source,omitempty"`
	}
	type meta struct {
		ExperimentID        *string      `json:"experiment_id"`
		TrialID             *string      `json:"trial_id"`
		ObservedArch        string       `json:"observed_arch"`
		ArchMatch           string       `json:"arch_match"`
		HardwareRelevance   string       `json:"hardware_relevance_reason"`
		ROCmVersion         *string      `json:"rocm_version"`
		Framework           *string      `json:"framework"`
		BaseImage           *string      `json:"base_image"`
		ResourceClass       *string      `json:"resource_class"`
		GPUDeviceIDs        []int        `json:"gpu_device_ids"`
		TraceDeviceIDs      []int        `json:"trace_device_ids"`
		GPUClocksMHz        *int         `json:"gpu_clocks_mhz"`
		PreflightPassed     *bool        `json:"preflight_passed"`
		ServerFlags         *string      `json:"server_flags"`
		BenchmarkConfigHash *string      `json:"benchmark_config_hash"`
		ModelName           *string      `json:"model_name"`
		TPSize              *int         `json:"tp_size"`
		ProfileStage        string       `json:"profile_stage"`
		SourceTracePath     *string      `json:"source_trace_path"`
		Partial             bool         `json:"partial"`
		TargetArch          string       `json:"target_arch"`
		ArchBasis           string       `json:"arch_basis"`
		Vendor              *string      `json:"vendor"`
		DeviceName          *string      `json:"device_name"`
		HIPRuntimeVersion   *string      `json:"hip_runtime_version"`
		CUDAVersion         *string      `json:"cuda_version"`
		Distributed         *Distributed `json:"distributed"`
		Stages              []string     `json:"stages"`
		SourceTracePaths    []string     `json:"source_trace_paths"`
		MappingTracePath    *string      `json:"mapping_trace_path"`
		FiguresRank         *int         `json:"figures_rank,omitempty"`
		Files               []fileInfo   `json:"files"`
		Tool                string       `json:"tool"`
		SchemaVersion       string       `json:"schema_version"`
	}
	m := meta{
		ObservedArch: a.Arch.ObservedArch, ArchMatch: a.Arch.ArchMatch, HardwareRelevance: a.Arch.Reason,
		ROCmVersion: opt(a.ROCmVersion), Framework: opt(a.Framework), TraceDeviceIDs: a.DeviceIDs, Partial: a.Partial(), TargetArch: a.Target,
		ArchBasis: a.Arch.Basis, Vendor: opt(a.Arch.Vendor), DeviceName: opt(a.Arch.DeviceName),
		HIPRuntimeVersion: opt(a.HIPVersion), CUDAVersion: opt(a.CUDAVersion), Distributed: a.Distributed, FiguresRank: a.FiguresRank,
		Stages: []string{}, SourceTracePaths: []string{}, Files: []fileInfo{}, Tool: Tool, SchemaVersion: Version,
	}
	if m.TraceDeviceIDs == nil {
		m.TraceDeviceIDs = []int{}
	}
	// Seed 004's linkage fields, written as given (null when unknown);
	// gpu_device_ids is the experiment's allocation, never the trace's
	// device index (that is trace_device_ids).
	id := a.Identity
	m.ExperimentID, m.TrialID = opt(id.ExperimentID), opt(id.TrialID)
	m.BaseImage, m.ResourceClass = opt(id.BaseImage), opt(id.ResourceClass)
	m.GPUDeviceIDs, m.GPUClocksMHz, m.PreflightPassed = id.GPUDeviceIDs, id.GPUClocksMHz, id.PreflightPassed
	m.ServerFlags, m.BenchmarkConfigHash, m.ModelName = opt(id.ServerFlags), opt(id.BenchmarkConfigHash), opt(id.ModelName)
	if id.TPSize > 0 {
		m.TPSize = &id.TPSize
	}
	for _, s := range a.Breakdown.Stages {
		m.Stages = append(m.Stages, s.Stage)
	}
	m.ProfileStage = strings.Join(m.Stages, ",")
	if a.StageFilter != "" {
		m.ProfileStage = a.StageFilter
	}
	if id.ProfileStage != "" {
		m.ProfileStage = id.ProfileStage
	}
	for _, fi := range a.TraceFiles {
		f := &a.Store.Files[fi]
		m.SourceTracePaths = append(m.SourceTracePaths, f.Name)
		m.Files = append(m.Files, fileInfo{Name: f.Name, Bytes: f.Bytes, Events: f.Events, Partial: f.Partial(),
			Problem: opt(f.Problem), BadEvents: f.BadEvents, Source: sourceOf(f.Source)})
	}
	if a.MappingFile != nil {
		f := a.MappingFile
		m.MappingTracePath = &f.Name
		m.Files = append(m.Files, fileInfo{Name: f.Name, Bytes: f.Bytes, Events: f.Events, Partial: f.Partial(),
			Problem: opt(f.Problem), BadEvents: f.BadEvents})
	}
	if len(m.SourceTracePaths) > 0 {
		m.SourceTracePath = &m.SourceTracePaths[0]
	}
	return encode(m)
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// source is a ROCm profiler file's own account of its run.
type source struct {
	Format   string  `json:"format"`
	Hostname string  `json:"hostname,omitempty"`
	Pid      int64   `json:"pid,omitempty"`
	InitNS   int64   `json:"process_init_ns,omitempty"`
	FiniNS   int64   `json:"process_fini_ns,omitempty"`
	Agents   []agent `json:"gpu_agents"`
	// Copies with a byte count in the file, and their bytes.
	CopiesWithSize int64 `json:"copies_with_size"`
	CopyBytes      int64 `json:"copy_bytes"`
}

type agent struct {
	Device  int64  `json:"device"`
	Node    int64  `json:"node_id"`
	Logical int64  `json:"logical_node_id"`
	Arch    string `json:"arch"`
	Product string `json:"product_name"`
	CUs     int64  `json:"cu_count"`
}

func sourceOf(s *trace.Source) *source {
	if s == nil {
		return nil
	}
	out := &source{Format: s.Format, Hostname: s.Hostname, Pid: s.Pid, InitNS: s.InitNS, FiniNS: s.FiniNS,
		Agents: []agent{}, CopiesWithSize: s.CopiesWithSize, CopyBytes: s.CopyBytes}
	for _, a := range s.Agents {
		out.Agents = append(out.Agents, agent{a.Device, a.Node, a.Logical, a.Arch, a.Product, a.CUs})
	}
	return out
}
