package crash

import (
	"bytes"
	"encoding/json"
	"github.com/gputriage/gputriage/internal/escape"
	"strconv"
	"strings"
)

// JSON renders the crash_diagnosis.json artifact: indented, deterministic,
// with a trailing newline.
func (d *Diagnosis) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	dd := *d
	if dd.Findings == nil {
		dd.Findings = []Finding{}
	}
	if dd.Inputs == nil {
		dd.Inputs = []InputInfo{}
	}
	for i := range dd.Findings {
		f := &dd.Findings[i]
		if f.Ranks == nil {
			f.Ranks = []int{}
		}
		if f.Evidence == nil {
			f.Evidence = []Evidence{}
		}
		if f.NextSteps == nil {
			f.NextSteps = []string{}
		}
	}
	if err := enc.Encode(&dd); err != nil {
		return []byte("{\"failure_reason\": \"internal error rendering the diagnosis\", \"findings\": [], \"inputs\": []}\n")
	}
	return b.Bytes()
}

// Markdown renders crash_summary.md.
func (d *Diagnosis) Markdown() []byte {
	var b strings.Builder
	b.WriteString("# Crash summary\n\n")
	b.WriteString("**Failure reason:** " + mdEscape(d.FailureReason) + "\n\n")
	if len(d.Findings) == 0 {
		b.WriteString("No crash or hang evidence was recognised in the inputs.\n\n")
	}
	for i, f := range d.Findings {
		b.WriteString("## " + strconv.Itoa(i+1) + ". " + mdEscape(f.Class) + " (" + mdEscape(f.ConfidenceLevel) + " confidence)\n\n")
		b.WriteString(mdEscape(f.Summary) + "\n\n")
		b.WriteString("_" + mdEscape(f.ClassMeaning) + "_\n\n")
		row := func(k, v string) {
			if v != "" {
				b.WriteString("| " + k + " | " + mdCell(v) + " |\n")
			}
		}
		b.WriteString("| field | value |\n|---|---|\n")
		row("kernel", f.Kernel)
		row("kernel meaning", f.KernelMeaning)
		row("kernel source", f.KernelSource)
		row("reason", f.Reason)
		row("reason meaning", f.ReasonMeaning)
		row("address", f.Address)
		row("address kind", f.AddressKind)
		if f.Node != nil {
			row("node", "node-"+strconv.Itoa(*f.Node))
		}
		row("agent", f.Agent)
		row("device", f.Device)
		row("queue", f.Queue)
		if f.QueueCount > 1 {
			row("queues", strconv.Itoa(f.QueueCount))
		}
		if len(f.Ranks) > 0 {
			row("ranks", intsString(f.Ranks))
		}
		if f.PID != nil {
			row("pid", strconv.Itoa(*f.PID)+" "+f.Process)
		} else {
			row("process", f.Process)
		}
		row("host", f.Host)
		row("signal", f.Signal)
		if f.ExitCode != nil {
			row("exit code", strconv.Itoa(*f.ExitCode))
		}
		row("HSA status", strings.TrimSpace(f.HSAStatus+" "+f.HSACode))
		if f.HIPError != "" {
			v := f.HIPError
			if f.HIPErrorCode != nil {
				v += " (" + strconv.Itoa(*f.HIPErrorCode) + ")"
			}
			if f.CUDAError != "" {
				v += " / " + f.CUDAError
			}
			row("HIP error", v)
		}
		row("requested", f.RequestedBytesText)
		row("sub-kind", f.SubKind)
		if f.SeqNum != nil {
			row("SeqNum", strconv.Itoa(*f.SeqNum)+" "+f.OpType)
		}
		if f.Waves > 0 {
			row("waves", strconv.Itoa(f.Waves))
		}
		row("code object", f.CodeObject)
		row("saved code object", f.SavedCodeObject)
		row("reported location", f.Location)
		for _, k := range sortedMapKeys(f.Details) {
			row(k, f.Details[k])
		}
		b.WriteString("\n")
		if len(f.StopPCs) > 0 {
			b.WriteString("Stop PCs: ")
			for j, pc := range f.StopPCs {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(escape.CodeSpan(pc.PC) + " ×" + strconv.Itoa(pc.Waves))
			}
			b.WriteString("\n\n")
		}
		if len(f.Disassembly) > 0 {
			b.WriteString(escape.Fence("", strings.Join(f.Disassembly, "\n")) + "\n")
		}
		mdIncident(&b, &f) // culprit, consequence_of, hang tables (incident.go)
		if len(f.Notes) > 0 {
			b.WriteString("Notes:\n\n")
			for _, n := range f.Notes {
				b.WriteString("- " + mdEscape(n) + "\n")
			}
			b.WriteString("\n")
		}
		if len(f.Evidence) > 0 {
			// one line per evidence line: a file name or text holding a
			// newline stays on it, and no fence inside closes the block
			var ev strings.Builder
			for _, e := range f.Evidence {
				ev.WriteString(escape.Line(e.File) + ":" + strconv.Itoa(e.Line) + ": " + strings.ReplaceAll(e.Text, "\n", `\x0a`) + "\n")
			}
			if f.EvidenceOmitted > 0 {
				ev.WriteString("… " + strconv.Itoa(f.EvidenceOmitted) + " more lines\n")
			}
			b.WriteString("Evidence:\n\n" + escape.Fence("", ev.String()) + "\n")
		}
		if len(f.NextSteps) > 0 {
			b.WriteString("Next steps:\n\n")
			for j, s := range f.NextSteps {
				b.WriteString(strconv.Itoa(j+1) + ". " + mdEscape(s) + "\n")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("## Inputs\n\n| file | bytes | lines | formats | flags |\n|---|---|---|---|---|\n")
	for _, in := range d.Inputs {
		flags := append([]string(nil), in.Quality...)
		if in.Truncated {
			flags = append([]string{"truncated"}, flags...)
		}
		b.WriteString("| " + mdCell(in.Name) + " | " + strconv.FormatInt(in.Bytes, 10) + " | " + strconv.Itoa(in.Lines) + " | " + mdCell(strings.Join(in.Formats, ", ")) + " | " + mdCell(strings.Join(flags, ", ")) + " |\n")
	}
	sep := "\n"
	for _, in := range d.Inputs {
		if in.Problem != "" {
			b.WriteString(sep + "- " + mdEscape(in.Name) + ": " + mdEscape(in.Problem) + "\n")
			sep = ""
		}
	}
	return []byte(b.String())
}

func mdEscape(s string) string { return escape.MarkdownText(s) }

func mdCell(s string) string { return escape.MarkdownText(s) }

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func jsonValid(b []byte) bool { return json.Valid(b) }
