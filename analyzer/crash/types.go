package crash

// Class ids (docs/crash-formats.md section 14).
const (
	ClassGPUMemoryFault     = "gpu_memory_fault"
	ClassDeviceAssert       = "device_assert"
	ClassIllegalInstruction = "illegal_instruction"
	ClassArchMismatch       = "arch_mismatch"
	ClassVRAMOOM            = "vram_oom"
	ClassHostOOMKill        = "host_oom_kill"
	ClassHostSegfault       = "host_segfault"
	ClassGPUHangReset       = "gpu_hang_reset"
	ClassECCRAS             = "ecc_ras"
	ClassDMADriverFault     = "dma_driver_fault"
	ClassCollectiveTimeout  = "collective_timeout"
	ClassRCCLTransport      = "rccl_transport"
	ClassCPUHang            = "cpu_hang"
	ClassGPUKernelHang      = "gpu_kernel_hang"
	ClassTritonCompile      = "triton_compile"
	ClassFP8AttentionCrash  = "fp8_attention_crash"
	ClassAsyncRace          = "async_race"
	ClassInvalidLaunch      = "invalid_launch"
	ClassNotGPU             = "not_gpu"
	// ClassNumericalNaN: a kernel-API level-5 log shows a call whose output
	// has NaN/Inf while its inputs are clean (kernelapi.go).
	ClassNumericalNaN = "nan_inf_output"
	// ClassKernelNotFound: a kernel module or symbol could not be loaded
	// (hipErrorNotFound 500 from hipModuleGetFunction, a missing HSACO):
	// path, symbol name or arch (seed 002 "Kernel Not Found").
	ClassKernelNotFound = "kernel_not_found"
)

// Classes lists every class id in diagnosis priority order (root causes
// before consequences).
var Classes = []string{
	ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassECCRAS,
	ClassGPUHangReset, ClassDMADriverFault, ClassArchMismatch, ClassInvalidLaunch, ClassKernelNotFound,
	ClassTritonCompile, ClassVRAMOOM, ClassFP8AttentionCrash, ClassGPUKernelHang,
	ClassCollectiveTimeout, ClassRCCLTransport, ClassCPUHang, ClassHostOOMKill,
	ClassHostSegfault, ClassAsyncRace, ClassNumericalNaN, ClassNotGPU,
}

func classRank(c string) int {
	for i, x := range Classes {
		if x == c {
			return i
		}
	}
	return len(Classes)
}

// Diagnosis is the crash_diagnosis.json document.
type Diagnosis struct {
	FailureReason string `json:"failure_reason"`
	// DetailJSON is the events.detail_json object of seed 000's dashboard
	// (kernelapi_detail.go): last boundary, failing call and arguments,
	// crash dump path, GPU and container state.
	DetailJSON map[string]any `json:"detail_json,omitempty"`
	Findings   []Finding      `json:"findings"`
	Inputs     []InputInfo    `json:"inputs"`
}

// Evidence is one input line that supports a finding.
type Evidence struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// PCCount is one entry of a stop-PC histogram.
type PCCount struct {
	PC     string `json:"pc"`
	Waves  int    `json:"waves"`
	Kernel string `json:"kernel,omitempty"`
}

// Finding is one diagnosed problem.
type Finding struct {
	Class         string   `json:"class"`
	Summary       string   `json:"summary"`
	ClassMeaning  string   `json:"class_meaning"`
	Kernel        string   `json:"kernel"`
	KernelMangled string   `json:"kernel_mangled,omitempty"`
	KernelMeaning string   `json:"kernel_meaning,omitempty"`
	KernelSource  string   `json:"kernel_source,omitempty"`
	Kernels       []string `json:"kernels,omitempty"`
	Reason        string   `json:"reason"`
	ReasonMeaning string   `json:"reason_meaning,omitempty"`
	Reasons       []string `json:"reasons,omitempty"`
	Address       string   `json:"address"`
	AddressKind   string   `json:"address_kind,omitempty"`
	Addresses     []string `json:"addresses,omitempty"`
	Node          *int     `json:"node"`
	Nodes         []int    `json:"nodes,omitempty"`
	Agent         string   `json:"agent,omitempty"`
	Device        string   `json:"device,omitempty"`
	Queue         string   `json:"queue,omitempty"`
	Queues        []string `json:"queues,omitempty"`
	QueueCount    int      `json:"queue_count,omitempty"`
	Ranks         []int    `json:"ranks"`
	PID           *int     `json:"pid,omitempty"`
	Process       string   `json:"process,omitempty"`
	Host          string   `json:"host,omitempty"`
	Signal        string   `json:"signal,omitempty"`
	ExitCode      *int     `json:"exit_code,omitempty"`
	HSAStatus     string   `json:"hsa_status,omitempty"`
	HSACode       string   `json:"hsa_code,omitempty"`
	HIPError      string   `json:"hip_error,omitempty"`
	HIPErrorCode  *int     `json:"hip_error_code,omitempty"`
	CUDAError     string   `json:"cuda_error,omitempty"`

	RequestedBytesText string `json:"requested_bytes_text,omitempty"`
	SubKind            string `json:"sub_kind,omitempty"`

	SeqNum  *int   `json:"seq_num,omitempty"`
	OpType  string `json:"op_type,omitempty"`
	SeqNums []int  `json:"seq_nums,omitempty"`

	Waves           int       `json:"waves,omitempty"`
	StopPCs         []PCCount `json:"stop_pcs,omitempty"`
	CodeObject      string    `json:"code_object,omitempty"`
	SavedCodeObject string    `json:"saved_code_object,omitempty"`
	Disassembly     []string  `json:"disassembly,omitempty"`

	Location string            `json:"location,omitempty"`
	Details  map[string]string `json:"details,omitempty"`

	// hang / multi-rank evidence (incident.go)
	Hang          *HangEvidence `json:"hang,omitempty"`
	Culprit       *Culprit      `json:"culprit,omitempty"`
	ConsequenceOf string        `json:"consequence_of,omitempty"`
	Count         int           `json:"count"`

	Evidence        []Evidence `json:"evidence"`
	EvidenceOmitted int        `json:"evidence_omitted,omitempty"`
	Confidence      float64    `json:"confidence"`
	ConfidenceLevel string     `json:"confidence_level"`
	NextSteps       []string   `json:"next_steps"`
	Notes           []string   `json:"notes,omitempty"`
}

// InputInfo describes one input file.
type InputInfo struct {
	Name      string   `json:"name"`
	Bytes     int64    `json:"bytes"`
	Lines     int      `json:"lines"`
	Formats   []string `json:"formats"`
	Truncated bool     `json:"truncated"`
	Quality   []string `json:"quality,omitempty"`
	// Problem says why the input was not (wholly) read, in the CLI's words,
	// naming the limit and its flag: an input over a limit is never
	// dropped from the diagnosis without a word (issue 24).
	Problem string `json:"problem,omitempty"`
}
