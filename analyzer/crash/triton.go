package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// tritonParser reads Triton / Inductor compile and load failures (docs
// section 10.3).
type tritonParser struct {
	s        *Session
	wantName int // line number of a "while executing [`Pass` on 'tt.func' operation:" awaiting "@name"
	frameNo  int // line number of the last traceback frame inside Triton
	// an OutOfResources text hard-wrapped after "out of resource: shared
	// memory," — its "Required: …, Hardware limit: …" is on the next line
	oorHead string
	oorLine int
	oorL    *line
}

var (
	reTritonPass     = lazyre.New("while executing \\[`(\\w+)`(?: on '([\\w.]+)' operation)?")
	reTritonAtName   = lazyre.New(`^@([A-Za-z_]\w*)\]?`)
	reTritonOpName   = lazyre.New(`operation: ?@([A-Za-z_]\w*)`)
	reTritonCacheMod = lazyre.New(`compiled module (\w+)\.py could not be loaded`)
	reTritonErrCode  = lazyre.New(`Triton Error \[(HIP|CUDA)\]:\s*(?:Code: (\d+)(?:, Messs?age: (.*))?|([a-z][^:]*)$)`)
	reTritonLaunch   = lazyre.New(`\b([A-Za-z_]\w*)\[(?:grid|\([^\]]*\))\]\(`)
	reTritonOOR      = lazyre.New(`out of resources?: ([A-Za-z][\w ]*?), Required: (\d+), Hardware limit(?:ation)?: (\d+)`)
	reTritonOORHead  = lazyre.New(`OutOfResources: out of resources?: [A-Za-z][\w ]*,$`)
	reTritonOORName  = lazyre.New(`OutOfResources: out of resources?: ([A-Za-z][A-Za-z ]*[A-Za-z])`)
)

func (p *tritonParser) beginFile(*Session) { p.wantName, p.frameNo, p.oorHead = 0, 0, "" }
func (p *tritonParser) endFile() {
	if p.oorHead != "" {
		p.bareOutOfResources(p.oorL, p.oorHead)
		p.oorHead = ""
	}
}

// bareOutOfResources: the OutOfResources text without its "Required: …,
// Hardware limit: …" (a paste or a title cut after the resource) is the
// same failure, less sure of its size.
func (p *tritonParser) bareOutOfResources(l *line, t string) {
	if m := reTritonOORName.FindStringSubmatch(t); m != nil && l != nil {
		p.outOfResources(l, tritonOOR{resource: m[1]})
	}
}

func (p *tritonParser) line(l *line) {
	t := l.text
	s := p.s
	if p.wantName > 0 {
		if l.no-p.wantName <= 2 {
			if name := extractTritonAtName(t); name != "" {
				a := s.b.add(s, ClassTritonCompile, l, 0.85)
				a.setKernel(name, "Triton MLIR pass failure", 85)
				p.wantName = 0
				return
			}
		} else {
			p.wantName = 0
		}
	}
	if p.oorHead != "" {
		head := p.oorHead
		p.oorHead = ""
		if l.no-p.oorLine == 1 && strings.HasPrefix(strings.TrimSpace(t), "Required: ") {
			if x, ok := extractTritonOutOfResources(head + " " + strings.TrimSpace(t)); ok {
				p.outOfResources(l, x)
				return
			}
		}
		p.bareOutOfResources(p.oorL, head)
	}
	if !containsAny(t, tritonKeywords...) {
		return
	}
	if strings.Contains(t, "File \"") && strings.Contains(t, "/triton/") {
		p.frameNo = l.no
	}
	if extractTritonCacheFrame(t) {
		s.b.facts.tritonCacheFrame = lineRef{file: l.file, no: l.no}
	}
	switch {
	case strings.Contains(t, "could not be loaded") && strings.Contains(t, "compiled module"):
		// Inductor: "Triton cache error: compiled module <kernel>.py could not be loaded"
		if m := reTritonCacheMod.FindStringSubmatch(t); m != nil {
			s.format("triton")
			a := s.b.add(s, ClassTritonCompile, l, 0.8)
			a.setKernel(m[1], "Inductor compiled module that could not be loaded", 80)
			a.addReason("a cached compiled Triton module could not be loaded (stale or corrupt cache)")
		}
	case strings.Contains(t, "in _precompile_config") && strings.Contains(t, "File \""):
		// a traceback frame in Inductor's precompile: the compile raised
		// (the exception text may be cut off a pasted excerpt)
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.75)
		a.addReason("Inductor's Triton precompile raised (traceback through _precompile_config)")
	case strings.Contains(t, "ModuleNotFoundError:") && !commandLike(t) && (strings.Contains(t, "triton") || p.frameNo > 0 && l.no-p.frameNo <= 40):
		// seed 000 pattern 4: Triton cache corruption or a version mismatch
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.75)
		a.addReason(strings.TrimSpace(t[strings.Index(t, "ModuleNotFoundError"):]))
		a.note("a ModuleNotFoundError inside Triton: a corrupted Triton cache or a Triton / PyTorch version mismatch (seed 000 pattern 4), not an application bug")
	case strings.Contains(t, "ImportError: cannot import name") && reTritonImport.MatchString(t) && !commandLike(t):
		// the same pattern in an import: Inductor / a kernel library asks a
		// Triton module for a name another Triton release moved or dropped
		// ("cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'")
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.75)
		a.addReason(strings.TrimSpace(t[strings.Index(t, "ImportError"):]))
		a.note("a name missing from an installed Triton module: the Triton release does not match the one PyTorch / the kernel library was built against (seed 000 pattern 4) — install the matching Triton (pytorch-triton-rocm on ROCm), then clear ~/.triton/cache")
	case strings.Contains(t, "out of resource"):
		// the compiled kernel needs more of a per-block resource (shared
		// memory / LDS) than the device has: raised when Triton loads it
		if commandLike(t) {
			break
		}
		if autotuneCandidate(t) {
			// defeater: the autotuner set one candidate config aside and
			// goes on with the others; only "No valid triton configs" fails
			s.b.facts.notes = appendCap(s.b.facts.notes, "line "+itoa(l.no)+": Triton's OutOfResources for one autotune candidate, which the autotuner skipped — not a failure", 8)
			break
		}
		if x, ok := extractTritonOutOfResources(t); ok {
			p.outOfResources(l, x)
		} else if strings.HasSuffix(strings.TrimSpace(t), ",") && reTritonOORHead.MatchString(t) {
			p.oorHead, p.oorLine, p.oorL = strings.TrimSpace(t), l.no, keepLine(l)
		} else {
			p.bareOutOfResources(l, t)
		}
	case strings.Contains(t, "Failed to translate TritonGPU to LLVM IR"):
		// Triton's lowering to LLVM IR failed and LLVM aborted the process
		// (no Python exception: "Pass execution failedLLVM ERROR: …",
		// "Translate to LLVM IR failedLLVM ERROR: …")
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.85)
		a.strong = true
		a.addReason("LLVM ERROR: Failed to translate TritonGPU to LLVM IR")
	case strings.Contains(t, "PassManager::run failed"):
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.9)
		a.strong = true
		a.addReason("PassManager::run failed")
	case strings.Contains(t, "while executing ["):
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.85)
		x := extractTritonPass(t)
		if x.pass != "" {
			a.detail("failed_pass", x.pass)
			a.addReason("MLIR pass " + x.pass + " failed")
		}
		if x.fn != "" {
			a.setKernel(x.fn, "Triton MLIR pass failure", 85)
		} else {
			p.wantName = l.no
		}
	case strings.Contains(t, "Pipeline failed"):
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.8)
		if i := strings.Index(t, ": note:"); i > 0 {
			a.setStr(&a.f.Location, t[:i])
		}
	case strings.Contains(t, "Triton Error ["):
		if x, ok := extractTritonError(t); ok {
			s.format("triton")
			e := x.hipErr()
			a := s.b.add(s, tritonErrorClass(e), l, 0.85)
			if x.code != "" {
				a.addReason("Triton Error [" + x.api + "] Code " + x.code + " " + x.msg)
			} else {
				a.addReason("Triton Error [" + x.api + "] " + x.msg)
			}
			a.setHIP(e)
		}
	case extractTritonLoadBinaryNull(t), strings.Contains(t, ".hsaco") && strings.Contains(t, "No such file"),
		strings.Contains(t, "_precompile_config") && containsAny(t, "rror", "xception"),
		strings.Contains(t, "triton.compiler.errors.CompilationError"), strings.Contains(t, "failures have been detected while processing an MLIR pass pipeline"):
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.8)
		a.addReason(clip(strings.TrimSpace(t), 160))
	case extractTritonStubBuild(t):
		s.format("triton")
		a := s.b.add(s, ClassTritonCompile, l, 0.75)
		a.detail("failure", "driver_stub_build")
		a.addReason("Triton could not build its driver stub with the host C compiler (" + clip(strings.TrimSpace(t[strings.Index(t, "CalledProcessError"):]), 120) + ")")
		a.note("Triton compiles a small C module (cuda_utils.c / hip_utils.c, older releases main.c) with the host compiler on first use; its failure is the host toolchain's — compiler, Python headers, the GPU runtime's import library — not a kernel's: rerun the printed command to see the compiler's own error")
	case strings.Contains(t, "[grid]("), strings.Contains(t, "]("):
		if name := extractTritonLaunch(t); name != "" {
			s.b.facts.lastTritonLaunch = name
			s.kernelHint(name, "Triton launch in the traceback", 60, l)
			if a := s.b.get(ClassTritonCompile); a != nil {
				a.setKernel(name, "Triton launch in the traceback", 60)
				a.evidence(l.ev(s))
			}
		}
	}
}

// tritonCacheFailure is the rule for an exception raised inside Triton's
// cache manager (a traceback frame in triton/runtime/cache.py at most 40
// lines before it) or naming a file in a Triton cache directory: a
// truncated, corrupt or concurrently written cache entry, or a cache
// directory that cannot be written (seed 000 pattern 4), not an application
// error. torch.go calls it for every Python exception line.
func (s *Session) tritonCacheFailure(l *line, exc string) {
	fr := s.b.facts.tritonCacheFrame
	inCache := fr.no > 0 && fr.file == l.file && l.no > fr.no && l.no-fr.no <= 40
	if !inCache && !extractTritonCachePath(exc) {
		return
	}
	s.b.facts.tritonCacheFrame = lineRef{}
	s.format("triton")
	a := s.b.add(s, ClassTritonCompile, l, 0.8)
	a.addReason(clip(strings.TrimSpace(exc), 160))
	a.detail("triton_cache", "exception raised in Triton's cache")
	a.note("the exception comes from Triton's kernel cache (a truncated, corrupt or concurrently written entry, or a cache directory that cannot be written): seed 000 pattern 4, not an application bug")
	if k := s.b.facts.lastTritonLaunch; k != "" {
		a.setKernel(k, "Triton launch in the traceback", 60)
	}
}

// Extractors (doc.go, Layering): pure functions from one line's text to a
// typed fact; they keep no session state and never decide a class.

// tritonPass is MLIR's "Pipeline failed while executing [`Pass` on
// 'tt.func' operation: @kernel]": the failed pass and, when on the same
// line, the kernel function.
type tritonPass struct{ pass, op, fn string }

func extractTritonPass(t string) tritonPass {
	var x tritonPass
	if m := reTritonPass.FindStringSubmatch(t); m != nil {
		x.pass, x.op = m[1], m[2]
	}
	x.fn = submatch(reTritonOpName, t)
	return x
}

// extractTritonAtName reads the "@kernel]" that continues a pass failure
// line wrapped after "operation:".
func extractTritonAtName(t string) string {
	return submatch(reTritonAtName, strings.TrimSpace(t))
}

// tritonError is "Triton Error [HIP]: Code: 1, Messsage: invalid argument"
// (Triton's own spelling of "Message" included).
type tritonError struct{ api, code, msg string }

func extractTritonError(t string) (tritonError, bool) {
	m := reTritonErrCode.FindStringSubmatch(t)
	if m == nil {
		return tritonError{}, false
	}
	if m[2] == "" {
		// the CUDA driver's wording carries only the message
		return tritonError{api: m[1], msg: strings.TrimSpace(m[4])}, true
	}
	return tritonError{api: m[1], code: m[2], msg: strings.TrimSpace(m[3])}, true
}

// hipErr is the runtime error the Triton error carries, by code or, without
// one, by its message.
func (x tritonError) hipErr() *hipErr {
	if x.code != "" {
		return lookupHIPCode(atoiDef(x.code, -1))
	}
	return lookupHIPText(x.msg)
}

// tritonErrorClass is the rule for "Triton Error [HIP|CUDA]": Triton's
// driver raises it from load_binary (loading the compiled code object) and
// from launch (driver.py's self.launch). A code object that does not load
// (invalid image, no binary for the GPU, symbol not found) is a compile /
// cache problem; an error of the launch itself — invalid argument
// (hipErrorInvalidValue: grid, block or kernel arguments the driver
// refuses), too many resources — is an invalid launch; a fault the launch
// reports (illegal address, OOM, assert) keeps its own class.
func tritonErrorClass(e *hipErr) string {
	if e == nil {
		return ClassTritonCompile
	}
	switch {
	case e.code == 1 || e.class == ClassInvalidLaunch:
		return ClassInvalidLaunch
	case e.class == ClassGPUMemoryFault, e.class == ClassVRAMOOM, e.class == ClassDeviceAssert, e.class == ClassGPUHangReset:
		return e.class
	}
	return ClassTritonCompile
}

// outOfResources is the rule for Triton's OutOfResources: a compile-time
// choice over a per-block limit, never device memory. It is two findings
// (docs/artifacts.md): invalid_launch, the root — the kernel's per-block
// resource is over the device's launch limit (crash-formats section 14:
// "compare grid/block/LDS with the limits") — and triton_compile, its
// consequence — Triton's load of the compiled kernel (_init_handles)
// refused it, and the fix is the Triton config.
func (p *tritonParser) outOfResources(l *line, x tritonOOR) {
	s := p.s
	s.format("triton")
	conf := 0.85
	if x.required == "" {
		conf = 0.75
	}
	for _, class := range []string{ClassInvalidLaunch, ClassTritonCompile} {
		a := s.b.add(s, class, l, conf)
		a.strong = true
		a.detail("out_of_resource", x.resource)
		if x.required != "" {
			a.addReason("Triton kernel needs " + x.required + " bytes of " + x.resource + ", the device allows " + x.limit)
			a.detail("resource_required", x.required)
			a.detail("resource_limit", x.limit)
		} else {
			a.addReason("Triton kernel needs more " + x.resource + " per block than the device allows (OutOfResources; the sizes are cut off)")
		}
		if class == ClassTritonCompile {
			a.f.ConsequenceOf = ClassInvalidLaunch
			a.note("Triton refused to load the compiled kernel because its launch resources exceed the device's (the invalid_launch finding): the config it was compiled with does not fit this GPU")
		} else {
			a.note("OutOfResources is the kernel's per-block " + x.resource + " (a compile-time tile / num_stages choice) over the device limit, not device memory (VRAM) running out")
		}
		if k := s.b.facts.lastTritonLaunch; k != "" {
			a.setKernel(k, "Triton launch in the traceback", 60)
		}
	}
}

// autotuneCandidate: the line reports one autotune candidate set aside —
// Inductor's select_algorithm "Exception out of resource: … for benchmark
// choice TritonTemplateCaller(…)" (pytorch/pytorch#143098), an autotuner's
// "Skipping config …" (pytorch/helion#738; helion#684 skips the shared
// memory OutOfResources the same way) — unless no candidate was left ("No
// valid triton configs", pytorch/pytorch#161040).
func autotuneCandidate(t string) bool {
	if strings.Contains(t, "No valid triton configs") {
		return false
	}
	return containsAny(t, "for benchmark choice", "Skipping config", "skipping config", "skip config", "Skip config", "select_algorithm.py")
}

// extractTritonLaunch reads the kernel of a Triton launch in a traceback's
// code line: "_attn_fwd[grid](".
func extractTritonLaunch(t string) string { return submatch(reTritonLaunch, t) }

// tritonOOR is Triton's OutOfResources text, raised when a compiled kernel
// is loaded: "out of resource: shared memory, Required: 126978, Hardware
// limit: 101376" (older Tritons: "Hardware limitation").
type tritonOOR struct{ resource, required, limit string }

func extractTritonOutOfResources(t string) (tritonOOR, bool) {
	m := reTritonOOR.FindStringSubmatch(t)
	if m == nil {
		return tritonOOR{}, false
	}
	return tritonOOR{resource: strings.TrimSpace(m[1]), required: m[2], limit: m[3]}, true
}

// extractTritonLoadBinaryNull: Triton's C launcher failed to load the
// compiled code object and raised without an exception set, in either the
// short form ("load_binary returned NULL") or CPython's own SystemError
// ("<built-in function load_binary> returned NULL without setting an
// exception"); seen with stale cache entries and ROCm/Triton mismatches.
// extractTritonStubBuild: the CalledProcessError of Triton's build of its
// driver stub — "subprocess.CalledProcessError: Command '['…\\triton\\runtime\\
// tcc\\tcc.exe', '…\\hip_utils.c', '-O3', '-shared', …" — a C source on a
// command line that names Triton.
func extractTritonStubBuild(t string) bool {
	i := strings.Index(t, "CalledProcessError: Command '[")
	return i >= 0 && strings.Contains(t[i:], ".c'") && strings.Contains(t[i:], "triton")
}

func extractTritonLoadBinaryNull(t string) bool {
	return containsAny(t, "load_binary returned NULL", "load_binary> returned NULL")
}

// extractTritonCacheFrame: a traceback frame inside Triton's cache manager
// ('File ".../triton/runtime/cache.py", line 77, in get_group').
func extractTritonCacheFrame(t string) bool {
	return strings.Contains(t, "File \"") && containsAny(t, "triton/runtime/cache.py", `triton\runtime\cache.py`)
}

// extractTritonCachePath: an exception text naming a file in a Triton cache
// directory ("No such file or directory: '/root/.triton/cache/<hash>/k.json.tmp…'").
func extractTritonCachePath(t string) bool {
	return containsAny(t, "/.triton/cache/", `\.triton\cache\`, "/triton_cache/")
}

// tritonKeywords feed the line prefilter (prefilter.go): a line reaches this
// parser only when it holds one of them. A new wording whose line holds
// none of them needs its keyword here.
// reTritonImport: the module named in the ImportError is Triton's own.
var reTritonImport = lazyre.New(`cannot import name '\w+' from '(?:triton|pytorch_triton)[.']`)

var tritonKeywords = []string{"PassManager", "Pipeline failed", "while executing [", "Triton", "triton", "load_binary", ".hsaco", "_precompile_config", "[grid](", "MLIR", "ModuleNotFoundError", "out of resource", "Required: "}

// lineRef names one line of one input file.
type lineRef struct{ file, no int }
