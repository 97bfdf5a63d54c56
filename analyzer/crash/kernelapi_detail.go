package crash

import (
	"path"
	"strconv"
	"strings"
)

// What the kernel-API evidence adds to the diagnosis: details on the
// findings, a finding of its own for the first NaN/Inf output, the
// kernel-API part of failure_reason, and seed 000's events.detail_json
// object (Step 7 "Integration with amdpilot Dashboard": last kernel
// boundary → failure_reason, input shapes/dtypes → failure_reason
// (structured), full crash dump path and GPU state → events.detail_json).

// kernelAPIDetails adds the kernel-API facts to one finding.
func (b *builder) kernelAPIDetails(a *agg) {
	k := &b.facts.kernelAPI
	if a.f.Class == ClassNotGPU {
		return
	}
	if k.lastCall != "" {
		a.detail("last_kernel_api_call", k.lastCall)
		switch {
		case k.exceptionAPI != "":
			a.detail("kernel_api_exception", k.exceptionAPI+" "+k.exceptionMsg)
		case !k.lastDone:
			a.detail("kernel_api_boundary", "the last logged call has no Output record: it is the failing call")
		}
		if k.lastCallEv != nil && !k.lastDone {
			a.evidence(*k.lastCallEv)
		}
		if len(k.args) > 0 {
			a.detail("kernel_api_call_args", strings.Join(k.args, "; "))
		}
		if k.pid > 0 {
			a.detail("kernel_api_pid", strconv.Itoa(k.pid))
		}
		a.detail("kernel_api_level", strconv.Itoa(k.level))
	}
	if k.dumpFunc != "" {
		a.detail("kernel_api_dump", k.dumpFunc+" (execution_status "+k.dumpStatus+")")
	}
	if d := k.crashedDump(); d != nil {
		a.detail("kernel_api_crashed_dump", d.dir)
		if d.status != "" {
			a.detail("kernel_api_crashed_status", d.status)
		}
		a.evidence(d.ev)
	}
}

// kernelAPIReason is the kernel-API part of failure_reason.
func (b *builder) kernelAPIReason(class string) string {
	k := &b.facts.kernelAPI
	if class == ClassNotGPU {
		return ""
	}
	var r string
	if k.lastCall != "" {
		r += "; last kernel API call: " + k.lastCall
		switch {
		case k.exceptionAPI != "":
			r += " (raised)"
		case !k.lastDone:
			r += " (no Output)"
		}
		if len(k.args) > 0 {
			r += " with " + clip(strings.Join(k.args, ", "), 200)
		}
	}
	if d := k.crashedDump(); d != nil {
		r += "; crashed inside " + dumpFunction(d, k) + " (dump " + path.Base(d.dir) + ": inputs saved, no outputs)"
	}
	return r
}

func dumpFunction(d *kapiDump, k *kernelAPIFact) string {
	if d.function != "" {
		return d.function
	}
	if k.lastCall != "" {
		return k.lastCall
	}
	return "the dumped call"
}

// detailJSON builds seed 000's events.detail_json object: one object ready
// to store, with only the keys the evidence supports.
func (b *builder) detailJSON(d *Diagnosis) map[string]any {
	k := &b.facts.kernelAPI
	m := map[string]any{}
	if len(d.Findings) > 0 {
		f := &d.Findings[0]
		m["class"] = f.Class
		if f.Kernel != "" {
			m["kernel"] = f.Kernel
		}
		m["confidence"] = f.ConfidenceLevel
	}
	if k.lastCall != "" {
		kb := map[string]any{"call": k.lastCall, "completed": k.lastDone, "level": k.level}
		if k.source != "" {
			kb["source"] = k.source
		}
		if k.lastCallEv != nil {
			kb["evidence"] = k.lastCallEv.File + ":" + strconv.Itoa(k.lastCallEv.Line)
		}
		if len(k.args) > 0 {
			kb["args"] = append([]string(nil), k.args...)
		}
		if k.exceptionAPI != "" {
			kb["exception"] = strings.TrimSpace(k.exceptionAPI + " " + k.exceptionMsg)
		}
		if k.pid > 0 {
			kb["pid"] = k.pid
		}
		if k.logFile != "" {
			kb["log_file"] = k.logFile
		}
		m["last_kernel_boundary"] = kb
	}
	if n := k.firstNaN; n != nil {
		m["first_nan_inf"] = map[string]any{"call": n.call, "output": n.output, "evidence": n.ev.File + ":" + strconv.Itoa(n.ev.Line)}
	}
	if dd := k.crashedDump(); dd != nil {
		cd := map[string]any{"path": dd.dir, "function": dumpFunction(dd, k), "inputs": dd.dir + "/inputs.pt"}
		if dd.pid > 0 {
			cd["pid"] = dd.pid
		}
		m["crash_dump"] = cd
	} else if dd := k.lastDump(); dd != nil {
		m["crash_dump"] = map[string]any{"path": dd.dir, "function": dumpFunction(dd, k), "status": dd.status}
	}
	gpu := map[string]any{}
	if len(b.facts.gpuArch) > 0 {
		gpu["arch"] = append([]string(nil), b.facts.gpuArch...)
	}
	if c := b.facts.container.detail(); c != nil {
		gpu["container"] = c
	}
	if len(d.Findings) > 0 {
		f := &d.Findings[0]
		if f.ExitCode != nil {
			gpu["exit_code"] = *f.ExitCode
		}
		if f.Signal != "" {
			gpu["signal"] = f.Signal
		}
		if f.Node != nil {
			gpu["node"] = *f.Node
		}
		if f.Address != "" {
			gpu["address"] = f.Address
		}
	}
	if len(gpu) > 0 {
		m["gpu_state"] = gpu
	}
	if len(m) == 0 {
		return nil
	}
	m["failure_reason"] = d.FailureReason
	return m
}
