package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// Pure extractors of the kernel-API logs (SGLang @debug_kernel_api,
// FlashInfer @flashinfer_api): one line of text in, a typed fact out. They
// keep no state and decide nothing; kernelapi_record.go assembles a call's
// argument rows, kernelapi.go keeps the facts, kernelapi_rules.go rules.

// kapiCall is a "… API Call: <name>" boundary line.
type kapiCall struct {
	source string // SGLang | FlashInfer
	name   string
}

// kapiExc is an "SGLang Kernel API Exception: <api> (<type>: <msg>)" line.
type kapiExc struct {
	api string
	msg string // "type: message", "" when the line names none
}

// kapiDumpRef is a level-10 dump folder named by a line: a "Dumped inputs
// to:" log line or a path listing of its files.
type kapiDumpRef struct {
	dir                       string
	inputs, outputs, metadata bool
	logged                    bool // the logger said so: level 10 is on whatever the folder's name
}

// kapiLineFacts is what one kernel-API line outside a call's argument rows
// states; zero fields are absent.
type kapiLineFacts struct {
	call      *kapiCall
	exc       *kapiExc
	boundary  bool // a call / exception line: nothing else on it is read
	dump      *kapiDumpRef
	graphSkip bool   // "Tensor dump skipped: CUDA graph capture in progress"
	filter    string // SGLANG_KERNEL_API_DUMP_INCLUDE=… as set
	envLevel  int    // SGLANG_KERNEL_API_LOGLEVEL / FLASHINFER_LOGLEVEL
	// metadata.json lines: has* tell a present key from an empty value
	function, status       string
	hasFunction, hasStatus bool
	exception              string // metadata "exception": "type: message"
	logPID                 string // a per-pid log file (%i) named on the line
}

var (
	reKAPICall   = lazyre.New(`(SGLang Kernel|FlashInfer) API Call: (\S.*)$`)
	reKAPIExc    = lazyre.New(`SGLang Kernel API Exception: (\S+)(?: \((\w+): (.*)\))?`)
	reMetaFunc   = lazyre.New(`"function_name": ?"([^"]*)"`)
	reMetaStat   = lazyre.New(`"execution_status": ?"([^"]*)"`)
	reMetaExc    = lazyre.New(`"exception": ?\{"type": ?"([^"]*)", ?"message": ?"([^"]*)"`)
	reDumpedTo   = lazyre.New(`(?:Dumped (inputs|outputs) to|(Inputs|Outputs) dumped to): (\S+)`)
	reLogFilePID = lazyre.New(`_level(\d+)_(\d+)\.log\b`)
	// seed 000's kernel_api_rank%i.log: %i is the pid (docs section 16)
	reLogFileRank = lazyre.New(`(?:rank|pid|_)(\d{3,9})\.log$`)
	reDumpPath    = lazyre.New(`((?:[\w.~+@-]*/)*[\w.+@-]+)/(inputs\.pt|outputs\.pt|metadata\.jsonl?|inputs\.safetensors|outputs\.safetensors)\b`)
	reDumpDir     = lazyre.New(`^(\d{8}_\d{6}_\d{3})_(?:pid(\d+)_)?(.+)_call(\d+)$`)
	reDumpFilter  = lazyre.New(`((?:SGLANG_KERNEL_API|FLASHINFER)_DUMP_(?:INCLUDE|EXCLUDE))=(\S+)`)
	reLevelEnv    = lazyre.New(`(?:SGLANG_KERNEL_API_LOGLEVEL|FLASHINFER_LOGLEVEL)=["']?(\d+)`)
)

// kernelAPIKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
var kernelAPIKeywords = []string{"API ", "Output", "\"function_name\"", "\"execution_status\"", "\"exception\"", "ump", "input arguments", "_count=", "_level", ".pt", ".safetensors", "metadata.json", "KERNEL_API_", "FLASHINFER_"}

// extractKAPILine reads one trimmed line outside a call's argument rows.
func extractKAPILine(t string) kapiLineFacts {
	var f kapiLineFacts
	switch {
	case strings.Contains(t, "API Call:"):
		f.boundary = true
		if m := reKAPICall.FindStringSubmatch(t); m != nil {
			f.call = &kapiCall{source: strings.TrimSuffix(m[1], " Kernel"), name: clip(strings.TrimSpace(m[2]), 300)}
		}
		return f
	case strings.Contains(t, "Kernel API Exception:"):
		f.boundary = true
		if m := reKAPIExc.FindStringSubmatch(t); m != nil {
			f.exc = &kapiExc{api: m[1]}
			if m[2] != "" {
				f.exc.msg = m[2] + ": " + m[3]
			}
		}
		return f
	}
	if m := findIf(t, "ump", reDumpedTo); m != nil {
		out := m[1] == "outputs" || m[2] == "Outputs"
		f.dump = &kapiDumpRef{dir: strings.TrimRight(m[3], ".,"), inputs: !out, outputs: out, logged: true}
	} else if strings.Contains(t, "Tensor dump skipped") {
		f.graphSkip = true
	} else if m := reDumpPath.FindStringSubmatch(t); m != nil && !strings.ContainsAny(t, "\"<>") {
		// a path listing (find / ls -R / crash_diagnostics crash_dumps)
		fl := m[2]
		f.dump = &kapiDumpRef{dir: m[1], inputs: strings.HasPrefix(fl, "inputs"), outputs: strings.HasPrefix(fl, "outputs"), metadata: strings.HasPrefix(fl, "metadata")}
	}
	if m := findIf(t, "_DUMP_", reDumpFilter); m != nil {
		f.filter = m[1] + "=" + strings.Trim(m[2], `"'`)
	}
	if m := findIf(t, "LOGLEVEL=", reLevelEnv); m != nil {
		f.envLevel = atoiDef(m[1], 0)
	}
	if f.hasFunction = strings.Contains(t, "\"function_name\""); f.hasFunction {
		f.function = submatch(reMetaFunc, t)
	}
	if f.hasStatus = strings.Contains(t, "\"execution_status\""); f.hasStatus {
		f.status = submatch(reMetaStat, t)
	}
	if strings.Contains(t, "\"exception\"") {
		if m := reMetaExc.FindStringSubmatch(t); m != nil {
			f.exception = m[1] + ": " + m[2]
		}
	}
	if m := findIf(t, "_level", reLogFilePID); m != nil {
		f.logPID = m[2]
	}
	return f
}

// extractKAPILogName reads a kernel-API log file's name: the pid of a
// per-process (%i) file and the level SGLang writes into it.
func extractKAPILogName(name string) (pid, level int) {
	if m := reLogFilePID.FindStringSubmatch(name); m != nil {
		return atoiDef(m[2], 0), atoiDef(m[1], 0)
	}
	if m := reLogFileRank.FindStringSubmatch(name); m != nil {
		return atoiDef(m[1], 0), 0
	}
	return 0, 0
}

// kapiRowKind is what a line inside a call record is.
type kapiRowKind uint8

const (
	rowOther    kapiRowKind = iota // a field of the current argument, or the program's next output
	rowBoundary                    // a call / exception / dump line: the record-start logic reads it
	rowRule                        // "=====" (FlashInfer closes a record with it after the output)
	rowSkip                        // "-----", blank, "(No explicit arguments)"
	rowInputs                      // "Positional / Keyword input arguments:", "Default parameters"
	rowOutput                      // "Output:", "Output value:"
	rowArg                         // "name=" / "arg[0]:" / "name: value": a new argument
	rowClose                       // ")" closing a Tensor(…) block
)

// kapiRow is one line of a call record.
type kapiRow struct {
	kind        kapiRowKind
	name, value string // rowArg
	fields      kapiArgFields
}

// kapiArgFields are the tensor fields a line states (level 3 / 5).
type kapiArgFields struct {
	shape, dtype, contiguous string
	nan, inf                 int
	hasNaN, hasInf           bool
}

var (
	reArgStart = lazyre.New(`^(arg\[\d+\]|[A-Za-z_]\w*)\s*(?:=|:$|: )\s*(.*)$`)
	reShape    = lazyre.New(`shape=(\([^)]*\)|\[[^\]]*\])`)
	reDtype    = lazyre.New(`dtype=([\w.]+)`)
	reContig   = lazyre.New(`is_contiguous=(True|False)`)
	reNaNCount = lazyre.New(`nan_count=(\d+)`)
	reInfCount = lazyre.New(`inf_count=(\d+)`)
	kapiFields = map[string]bool{"shape": true, "dtype": true, "device": true, "requires_grad": true, "is_contiguous": true,
		"min": true, "max": true, "mean": true, "nan_count": true, "inf_count": true, "stride": true, "statistics": true, "repr": true}
)

// extractKAPIRow reads one trimmed line inside a call record.
func extractKAPIRow(t string) kapiRow {
	switch {
	case strings.Contains(t, "API Call:"), strings.Contains(t, "API Exception:"), strings.HasPrefix(t, "Dumped "), strings.Contains(t, "dumped to:"),
		strings.HasPrefix(t, "Tensor dump skipped"):
		// a dump note after the arguments is the logger's, not a field of
		// the last argument (its "skipped: CUDA graph capture" is a fact)
		return kapiRow{kind: rowBoundary}
	case strings.HasPrefix(t, "====="):
		return kapiRow{kind: rowRule}
	case strings.HasPrefix(t, "-----"), t == "", strings.HasPrefix(t, "(No explicit arguments)"):
		return kapiRow{kind: rowSkip}
	case strings.HasPrefix(t, "Positional input arguments:"), strings.HasPrefix(t, "Keyword input arguments:"), strings.HasPrefix(t, "Default parameters"):
		return kapiRow{kind: rowInputs}
	case strings.HasPrefix(t, "Output:"), strings.HasPrefix(t, "Output value:"):
		return kapiRow{kind: rowOutput}
	}
	// fields of a value ("shape=…") are not arguments of their own
	if m := reArgStart.FindStringSubmatch(t); m != nil && !kapiFields[m[1]] {
		return kapiRow{kind: rowArg, name: m[1], value: m[2], fields: extractKAPIFields(m[2])}
	}
	r := kapiRow{kind: rowOther, fields: extractKAPIFields(t)}
	if t == ")" {
		r.kind = rowClose
	}
	return r
}

// extractKAPIFields reads shape, dtype, contiguity and NaN/Inf counts.
func extractKAPIFields(t string) kapiArgFields {
	var f kapiArgFields
	if m := findIf(t, "shape=", reShape); m != nil {
		f.shape = m[1]
	}
	if m := findIf(t, "dtype=", reDtype); m != nil {
		f.dtype = strings.TrimRight(m[1], ".,")
	}
	if m := findIf(t, "is_contiguous=", reContig); m != nil {
		f.contiguous = m[1]
	}
	if m := findIf(t, "nan_count=", reNaNCount); m != nil {
		f.nan, f.hasNaN = atoiDef(m[1], 0), true
	}
	if m := findIf(t, "inf_count=", reInfCount); m != nil {
		f.inf, f.hasInf = atoiDef(m[1], 0), true
	}
	return f
}
