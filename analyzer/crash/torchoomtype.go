package crash

import "strings"

// PyTorch raises torch.OutOfMemoryError (torch.cuda.OutOfMemoryError
// before 2.5) only when a device allocation fails, so the exception's type
// names the class even when its message does not say "out of memory":
//
//	torch.OutOfMemoryError: Allocation on device             (ComfyUI re-raises it with its own text)
//	torch.OutOfMemoryError: Error in model executi           (vLLM's wrapper, a paste cut mid-word)
//
// A message with the caching allocator's "Tried to allocate" is read by the
// OOM rule (torchParser.oom); a java.lang.OutOfMemoryError is the JVM's heap
// and no type here.

var torchOOMTypes = []string{"torch.OutOfMemoryError:", "torch.cuda.OutOfMemoryError:"}

// torchOOMType is one raised device-OOM exception: its type and message.
type torchOOMType struct {
	typ, msg string
}

func extractTorchOOMType(t string) (torchOOMType, bool) {
	for _, typ := range torchOOMTypes {
		i := strings.Index(t, typ)
		if i < 0 || i > 0 && !oomTypeBoundary(t[i-1]) {
			continue
		}
		return torchOOMType{typ: strings.TrimSuffix(typ, ":"), msg: strings.TrimSpace(t[i+len(typ):])}, true
	}
	return torchOOMType{}, false
}

// oomTypeBoundary: the type starts the exception, after a space, a quote
// or a log prefix's bracket — not inside a longer dotted name.
func oomTypeBoundary(c byte) bool {
	return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == ']' || c == ')' || c == ':' || c == '|'
}

// applyTorchOOMType: the device allocator failed → vram_oom, less sure than
// the allocator's own report (no request size, no capacity).
func (s *Session) applyTorchOOMType(l *line, x torchOOMType) {
	s.format("torch_oom")
	a := s.b.add(s, ClassVRAMOOM, l, 0.8)
	a.detail("exception", x.typ)
	r := "PyTorch raised " + x.typ + " (a device allocation failed)"
	if x.msg != "" {
		r += ": " + clip(x.msg, 120)
	}
	a.addReason(r)
}
