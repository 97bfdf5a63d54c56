// Package analyzer is gputriage's core: evidence in (trace files, logs),
// answers out (artifacts). It does no I/O of its own: a host — the wasm
// module's exports, the CLI's native engine, a test — pushes each file's
// decompressed bytes through a Job and takes the artifacts it returns.
package analyzer

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"encoding/json"

	"github.com/gputriage/gputriage/analyzer/arch"
	"github.com/gputriage/gputriage/analyzer/breakdown"
	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/collectives"
	"github.com/gputriage/gputriage/analyzer/crash"
	"github.com/gputriage/gputriage/analyzer/fuse"
	"github.com/gputriage/gputriage/analyzer/identity"
	"github.com/gputriage/gputriage/analyzer/idle"
	"github.com/gputriage/gputriage/analyzer/kernels"
	"github.com/gputriage/gputriage/analyzer/launch"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/report"
	"github.com/gputriage/gputriage/analyzer/rocprof"
	"github.com/gputriage/gputriage/analyzer/roofline"
	"github.com/gputriage/gputriage/analyzer/steps"
	"github.com/gputriage/gputriage/analyzer/timeline"
	"github.com/gputriage/gputriage/analyzer/trace"
	"github.com/gputriage/gputriage/internal/escape"
)

// Exit codes shared by the module's exports and the CLI.
const (
	ExitOK      = 0
	ExitPartial = 1 // results produced, but some input was damaged or cut short
	ExitUsage   = 2 // usage error or unreadable input
	// diff: the runs are not comparable (archs or seed-004 fields differ
	// or are unknown) and --force was not given.
	ExitRefused = 3
	// diff: a --fail-on threshold was exceeded (a regression from A to B).
	ExitRegression = 4
)

// DefaultTarget is the fleet architecture of seed 004 (MI355X).
const DefaultTarget = "gfx950"

// Options configure a job; the JSON form is what the module's begin() takes.
type Options struct {
	Command    string `json:"command"`     // auto | breakdown | triage | overlap | diagnose | perfetto-fix
	TargetArch string `json:"target_arch"` // gfx… or sm…, or a product name (MI355X, H100)
	// TargetProduct is the product --target-arch named, if it named one
	// (set by the job: its roofs are the target's, MI350X's not MI355X's).
	TargetProduct string `json:"target_product,omitempty"`
	Stage         string `json:"stage"` // keep only this stage
	// MergeRanks: breakdown of a job's rank files also writes
	// ranks_merged_trace.json, every rank's GPU work on the common clock.
	MergeRanks bool `json:"merge_ranks,omitempty"`
	// Mapping names the graph-off (or capture) traces of a triage/overlap
	// pair, as passed to BeginFile; Formal the graph-on ones. When neither
	// is given, the pair is found from the traces themselves.
	Mapping []string `json:"mapping,omitempty"`
	Formal  []string `json:"formal,omitempty"`
	// diff: compare even when the runs are not comparable, and the
	// seed-004 comparison fields of run A and run B (unknown when empty).
	Force   bool           `json:"force,omitempty"`
	Compare [2]RunIdentity `json:"compare,omitempty"`
	// SplitA is how many of the inputs, in order, are run A (the rest are
	// run B); 0 = the first trace is A and the second B.
	SplitA int `json:"split_a,omitempty"`
	// FailOn are diff's regression thresholds ("total:+5%", …).
	FailOn []string `json:"fail_on,omitempty"`
	// Run is the identity of the analysed run as the user gave it (flags,
	// --run file, the page's form); it wins over sidecars.
	Run RunIdentity `json:"run"`
	// Roofline roofs overriding the device table (0 = the table's).
	PeakTFLOPS float64 `json:"peak_tflops,omitempty"`
	PeakGBPS   float64 `json:"peak_gbps,omitempty"`
	// ModelConfig is a model's config.json (hidden size, heads, experts,
	// top_k, dtype), read by the host, for the roofline's ops whose
	// dimensions the traces lack.
	ModelConfig json.RawMessage `json:"model_config,omitempty"`
	// Limits are the resource budgets (zero fields: defaults; docs/limits.md).
	Limits limits.Limits `json:"limits,omitempty"`
}

// RunIdentity is seed 004's linkage and comparison fields of one run.
type RunIdentity = identity.Identity

// ParseOptions decodes and validates options JSON (empty = defaults).
func ParseOptions(b []byte) (Options, error) {
	var o Options
	if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &o); err != nil {
			return o, fmt.Errorf("options: %v", err)
		}
	}
	return o, o.normalize()
}

func (o *Options) normalize() error {
	if o.Command == "" {
		o.Command = "auto"
	}
	switch o.Command {
	case "auto", "breakdown", "triage", "overlap", "diff", "diagnose", "perfetto-fix", "extract", "ranks":
	default:
		return fmt.Errorf("unknown command %q (want breakdown, triage, overlap, diff, diagnose, perfetto-fix, extract or ranks)", o.Command)
	}
	l, err := o.Limits.Normalized()
	if err != nil {
		return err
	}
	o.Limits = l
	if o.TargetArch == "" {
		o.TargetArch = DefaultTarget
	}
	if isa, name := arch.Product(o.TargetArch); isa != "" {
		o.TargetArch, o.TargetProduct = isa, name
	}
	o.TargetArch = arch.NormalizeTarget(o.TargetArch)
	if !arch.ValidTarget(o.TargetArch) {
		return fmt.Errorf("--target-arch %q is not a gfx or sm architecture nor a product name (e.g. gfx950, gfx942, sm90, MI355X, MI300X, H100, B200)", o.TargetArch)
	}
	if o.PeakTFLOPS < 0 || o.PeakGBPS < 0 {
		return fmt.Errorf("--peak-tflops and --peak-gbps must be positive")
	}
	o.Stage = strings.ToLower(strings.TrimSpace(o.Stage))
	if o.Stage == "extend" {
		o.Stage = callsite.StagePrefill
	}
	return nil
}

// FileResult says how one input was read.
type FileResult struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // trace | log | json | tensor | unknown
	Bytes   int64  `json:"bytes"`
	Partial bool   `json:"partial"`
	Problem string `json:"problem"`
	// Problems counts the values that could not be used (skipped events,
	// out-of-range times, cut names), when there are any.
	Problems []trace.Count `json:"problems,omitempty"`

	zip bool // a zip archive: maybe a torch.save tensor of a dump folder
	// artifact: gputriage's own output from an earlier run (-o into the
	// traces' folder), not an input of this one.
	artifact bool
}

// Artifact is one output file. A streamed one (stream.go) has no Text
// until it is written (Result.WriteArtifact) or asked for (Result.Text).
type Artifact struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Result is what a job returns: the artifacts and how each input fared.
type Result struct {
	ExitCode  int          `json:"exit_code"`
	Error     string       `json:"error,omitempty"`
	Files     []FileResult `json:"files"`
	Artifacts []Artifact   `json:"artifacts"`
	// Runs lists the runs found when the inputs are several (the job is
	// then refused): a host may analyse each on its own.
	Runs []RunGroup `json:"runs,omitempty"`
	// streams are the streamed artifacts by name (stream.go).
	streams map[string]*streamed
}

// Artifact returns the named artifact's text, or "" if absent.
func (r *Result) Artifact(name string) (string, bool) {
	for _, a := range r.Artifacts {
		if a.Name == name {
			return r.Text(a), true
		}
	}
	return "", false
}

// sidecarMax is the default bound of the JSON documents that are not
// traces (crash diagnostics, kernel-API dump metadata, flight-recorder
// dumps) kept for the crash analysis (--max-side-doc-bytes).
const sidecarMax = limits.DefaultSideDoc

func (j *Job) sideDocOver() string {
	return fmt.Sprintf("a side document larger than the limit of %d bytes (--max-side-doc-bytes): not read", j.opts.Limits.SideDocBytes)
}

// Job runs one analysis over any number of files.
type Job struct {
	// streams are the result's streamed artifacts by name (stream.go).
	streams map[string]*streamed
	opts    Options
	store   *trace.Store   // every trace (breakdown)
	stores  []*trace.Store // one per trace file (triage, overlap)
	crash   *crash.Session
	files   []FileResult
	cur     *current
	nlogs   int
	fix     *fixJob // perfetto-fix
	// drawn is the analysis gpu_lanes.json was written from: Spans
	// encodes its kernels for the page's timeline.
	drawn *report.Analysis
	// sidecar is what server_args.json beside the traces says.
	sidecar  identity.Identity
	sidecars map[int]identity.Identity // by file index (diff: per side)
	digests  []string                  // content digest per input, for the run id
	sides    [2]*trace.Store           // diff with SplitA: one store per run
	docs     []artifactDoc             // diff: gputriage artifacts given as a run
	budget   *trace.Budget
	// expect is the host's estimate of all the inputs' bytes (ExpectBytes),
	// sized the estimates of the files already ended (FileSize).
	expect, sized int64
	csvRuns       []csvRun               // rocprofv3 CSV files, by run, until Finish
	sums          []*collectives.Summary // ranks: the rank summaries read
	sumBytes      int64                  // ranks: their bytes (limits.RankSummariesBytes)
	// stagesSeen are the stages of every analysed trace (--stage must name one).
	stagesSeen map[string]bool
	// stageFiles holds, for triage and overlap, the store of each rank of
	// an SGLang by-stage profile: its EXTEND and DECODE files are one
	// rank's run split in time, analysed together.
	stageFiles map[string]*trace.Store
	// crossPartial: a cross-rank answer is partial (j.match)
	crossPartial bool
}

// headMax is how much of a JSON document is kept for reading it whole (a
// sidecar, an artifact, a rank summary).
func (j *Job) headMax() int64 {
	if j.opts.Command == "ranks" {
		// one summary, and what is left of the bound on all of them
		return min(limits.RankSummaryBytes, limits.RankSummariesBytes-j.sumBytes)
	}
	return j.opts.Limits.SideDocBytes
}

// ErrStop is what Write returns once the current file needs no more bytes
// (a limit was reached, or the document is broken beyond repair): the host
// should stop reading it and call EndFile. The job is still usable.
var ErrStop = errors.New("the current file takes no more bytes")

// perTrace reports commands that compare traces and so keep one store each.
func (j *Job) perTrace() bool {
	return j.opts.Command == "triage" || j.opts.Command == "overlap" || j.opts.Command == "diff"
}

type current struct {
	res       *FileResult
	kind      string // "" until sniffed
	reader    *trace.Reader
	head      []byte // JSON kept in case it is a sidecar, not a trace
	headBig   bool
	headLen   int64 // the JSON bytes routed, kept in head or not
	ours      bool  // begins as a gputriage artifact does
	sniff     []byte
	hostErr   string
	size      int64 // the host's estimate of the decompressed size, 0 = unknown
	shared    bool  // read into the store the later files share (breakdown)
	digest    digest
	nulPrefix int64 // leading NUL bytes skipped before sniffing
	read      int64 // compressed bytes the host has read, 0 = unknown
	stopped   bool
	archive   string // what archive format the file is, if it is one
	gz        *gunzipper
	// ROCm profiler outputs (rocprofjob.go)
	doc      []byte // rocprofv3 JSON, read whole at its end
	rocStore *trace.Store
	csv      *rocprof.CSVFile
	rows     *rocprof.Rows
}

// New starts a job.
func New(o Options) (*Job, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	j := &Job{opts: o, store: trace.NewStore(), crash: crash.New(), budget: trace.NewBudget(o.Limits)}
	j.crash.SetSideDocLimit(o.Limits.SideDocBytes)
	j.store.Budget = j.budget
	return j, nil
}

// BeginFile starts an input; name is the path or file name as the user gave it.
func (j *Job) BeginFile(name string) {
	if j.cur != nil {
		j.EndFile()
	}
	if j.opts.Command == "perfetto-fix" {
		j.files = append(j.files, FileResult{Name: name, Kind: "trace"})
		j.fixBegin(name)
		return
	}
	j.files = append(j.files, FileResult{Name: name})
	j.cur = &current{res: &j.files[len(j.files)-1]}
}

// Write pushes the next chunk of the current file's decompressed bytes.
func (j *Job) Write(p []byte) (int, error) {
	if j.fix != nil {
		j.files[len(j.files)-1].Bytes += int64(len(p))
		return j.fix.write(p)
	}
	c := j.cur
	if c == nil {
		return 0, fmt.Errorf("write before BeginFile")
	}
	if c.gz != nil {
		return j.writeGzip(c, p)
	}
	return j.write(c, p)
}

// ratioStep is the spacing of the points of a gzip file's decompressed
// bytes where the ratio guard looks (limits.Limits.RatioAfter + k × step,
// k ≥ 1): the CLI and the Worker push 1 MiB chunks, the page whatever
// DecompressionStream hands over, and the guard must stop all of them at
// the same byte, or the message ("decompressed to N bytes") differs.
const ratioStep = 1 << 20

// write pushes decompressed bytes of the current file, cut at the ratio
// guard's checkpoints when the host says how much it has read compressed.
func (j *Job) write(c *current, p []byte) (int, error) {
	c.res = &j.files[len(j.files)-1]
	if c.stopped {
		return 0, ErrStop
	}
	if c.read <= 0 {
		return j.writeOn(c, p)
	}
	done := 0
	for {
		after := j.opts.Limits.RatioAfter
		cp := after + ratioStep
		if b := c.res.Bytes; b >= cp {
			cp = after + ((b-after)/ratioStep+1)*ratioStep
		}
		if c.res.Bytes+int64(len(p)) < cp {
			n, err := j.writeOn(c, p)
			return done + n, err
		}
		// The bytes up to the checkpoint are analysed, then the guard
		// looks. (The compressed count is left out of its message: how
		// far a host has read ahead of what it pushed is timing.)
		k := int(cp - c.res.Bytes)
		n, err := j.writeOn(c, p[:k])
		done += n
		if err != nil {
			return done, err
		}
		p = p[k:]
		if j.opts.Limits.RatioExceeded(c.res.Bytes, c.read) {
			j.stop(c, fmt.Sprintf("decompressed to %d bytes, more than %d× its compressed size (--max-ratio): the rest of the file is not read",
				c.res.Bytes, j.opts.Limits.Ratio))
			return done, ErrStop
		}
	}
}

// writeOn pushes decompressed bytes of the current file past the ratio guard.
func (j *Job) writeOn(c *current, p []byte) (int, error) {
	if c.stopped {
		return 0, ErrStop
	}
	c.res.Bytes += int64(len(p))
	c.digest.write(p)
	if c.kind == "" {
		if len(c.sniff) == 0 {
			// a run of NUL bytes in front (logrotate copytruncate) carries
			// nothing: sniff what follows it (crash.LooksText)
			n := 0
			for n < len(p) && p[n] == 0 {
				n++
			}
			c.nulPrefix += int64(n)
			p = p[n:]
			if len(p) == 0 {
				return n, nil
			}
		}
		// Sniff on the first 512 bytes (or fewer at the end of the file).
		c.sniff = append(c.sniff, p...)
		if len(c.sniff) < 512 || len(c.sniff) < blankMax && blank(c.sniff) {
			return len(p), nil
		}
		j.decide(c)
		p, c.sniff = c.sniff, nil
	}
	j.route(c, p)
	if c.reader != nil && c.reader.Stopped() {
		c.stopped = true
		return len(p), ErrStop
	}
	return len(p), nil
}

// stop ends the current file for a limit the job enforces itself.
func (j *Job) stop(c *current, msg string) {
	c.stopped = true
	if c.reader != nil {
		c.reader.Stop(msg)
	} else if c.hostErr == "" {
		c.hostErr = msg
	}
}

// FileRead passes how many compressed bytes the host has read of the
// current file so far (for gzip input; never for plain files): the
// decompression-ratio guard compares it with the bytes pushed.
func (j *Job) FileRead(n int64) {
	// (a file the job gunzips itself counts what its gzip consumed)
	if j.cur != nil && j.cur.gz == nil {
		j.cur.read = n
	}
}

func (j *Job) decide(c *current) {
	b := bytes.TrimLeft(bytes.TrimPrefix(c.sniff, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(b) == 0 && len(c.sniff) == 0 && c.nulPrefix > 0:
		c.kind = "unknown" // NUL bytes only
	case len(b) == 0 && len(c.sniff) == 0:
		c.kind = "empty"
	case len(b) == 0 && len(c.sniff) < blankMax:
		c.kind = "blank"
	case archive(c.sniff) != "":
		c.kind, c.archive = "unknown", archive(c.sniff)
		c.res.zip = bytes.HasPrefix(c.sniff, []byte("PK\x03\x04"))
	case j.setRocKind(c, b):
	case crash.DockerInspect(b), crash.PySpyJSON(b):
		// container exit evidence or a py-spy JSON dump, not a trace-event array
		c.kind = "log"
		j.crash.BeginFile(c.res.Name)
	case looksJSON(b) && !crash.JSONLog(b) && (j.wantsTraces() || !crash.WrappedLog(b)) || len(b) > 0 && b[0] == '"' && j.wantsTraces():
		// (a log exported as JSON — cloud logging, docker json-file — is
		// read as a log by the crash commands: its objects are no events)
		c.kind = "json"
		c.ours = artifactStart(b)
		st := j.store
		switch {
		case j.opts.Command == "diff" && j.opts.SplitA > 0:
			st = j.sideStore(len(j.files) - 1)
		case j.perTrace():
			st = j.stageStore(c.res.Name)
		}
		c.reader = st.NewReader(c.res.Name)
		c.shared = st == j.store
		c.reader.SizeHint(c.size)
		c.reader.RestHint(j.rest(c))
	case binary(c.sniff) && !crash.IsPickle(c.sniff): // pickles: flight-recorder dumps
		c.kind = "unknown"
	default:
		c.kind = "log"
		j.crash.BeginFile(c.res.Name)
	}
}

// blankMax is how much leading whitespace is sniffed before a file is
// taken for a log: a file of only whitespace (or a BOM) is refused.
const blankMax = 64 << 10

func blank(b []byte) bool {
	return len(bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")) == 0
}

// wantsTraces reports commands that take only traces: a JSON scalar given
// to them is a wrong input, not a log.
func (j *Job) wantsTraces() bool {
	switch j.opts.Command {
	case "breakdown", "triage", "overlap", "diff", "extract":
		return true
	}
	return false
}

// archive names the archive or compression format b starts with, if any:
// such a file is neither a trace nor a log, even when its members are
// stored uncompressed and look like text.
func archive(b []byte) string {
	for _, m := range []struct{ magic, name string }{
		{"\x1f\x8b", "gzip data that was not decompressed"},
		{"PK\x03\x04", "a zip archive: unzip it and give the files inside"},
		{"PK\x05\x06", "an empty zip archive"},
		{"BZh", "bzip2 data: decompress it first (bunzip2)"},
		{"\xfd7zXZ\x00", "xz data: decompress it first (unxz)"},
		{"\x28\xb5\x2f\xfd", "zstd data: decompress it first (unzstd)"},
		{"7z\xbc\xaf\x27\x1c", "a 7z archive: extract it and give the files inside"},
	} {
		if bytes.HasPrefix(b, []byte(m.magic)) {
			return m.name
		}
	}
	if len(b) > 262 && string(b[257:262]) == "ustar" {
		return "a tar archive: extract it and give the files inside"
	}
	return ""
}

// looksJSON tells a JSON document from a log whose lines start with '['
// (dmesg "[  12.3]", torch "[rank0]:"): an array must open an object.
func looksJSON(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '{' {
		return true
	}
	if b[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(b[1:], " \t\r\n")
	return len(rest) == 0 && len(b) < 512 || len(rest) > 0 && (rest[0] == '{' || rest[0] == ']')
}

// binary reports data that is neither a trace nor a text log.
func binary(b []byte) bool {
	if len(b) > 512 {
		b = b[:512]
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) && crash.LooksText(b) {
		return false // UTF-16 or NUL-padded (copytruncate) logs: the crash session decodes them
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0 || r == utf8.RuneError && n == 1 && len(b)-i >= utf8.UTFMax {
			bad++
		}
		i += n
	}
	return bad*10 > len(b) || bytes.HasPrefix(b, []byte{0x1f, 0x8b})
}

func (j *Job) route(c *current, p []byte) {
	if j.rocRoute(c, p) {
		return
	}
	switch c.kind {
	case "json":
		c.reader.Write(p)
		c.headLen += int64(len(p))
		if !c.headBig {
			if int64(len(c.head)+len(p)) > j.headMax() {
				c.headBig, c.head = true, nil
			} else {
				c.head = append(c.head, p...)
			}
		}
	case "log":
		j.crash.Write(p)
	}
}

// FileSize passes the host's estimate of the current file's decompressed
// size (the file size, or a gzip member's ISIZE); memory planning only,
// capped by the limits.
func (j *Job) FileSize(n int64) {
	n = j.opts.Limits.ClampHint(n, 0)
	if j.cur != nil {
		j.cur.size = n
		if j.cur.reader != nil {
			j.cur.reader.SizeHint(n)
			j.cur.reader.RestHint(j.rest(j.cur))
		}
	}
}

// ExpectBytes passes the host's estimate of the decompressed size of all
// the inputs it will push (a folder's files; each file's own estimate
// still comes with FileSize): memory planning only, so that the store's
// records, shared by a rank folder's files, grow once for the folder
// rather than once per file.
func (j *Job) ExpectBytes(n int64) { j.expect = j.opts.Limits.ClampHint(n, 0) }

// rest is the host's estimate of the bytes of the inputs after c that
// will share its store (none when each trace has its own: triage, diff).
func (j *Job) rest(c *current) int64 {
	if j.expect <= 0 || !c.shared {
		return 0
	}
	return max(j.expect-j.sized-c.size, 0)
}

// FileError records a problem the host met reading the current file (a
// truncated gzip stream, a read error): the bytes pushed so far are kept and
// the file is flagged partial.
func (j *Job) FileError(msg string) {
	if j.cur != nil {
		j.cur.hostErr = msg
	}
	if j.fix != nil {
		j.fix.hostErr = msg
	}
}

// EndFile ends the current input.
func (j *Job) EndFile() {
	if j.fix != nil {
		j.fixEnd()
		return
	}
	c := j.cur
	if c == nil {
		return
	}
	if c.gz != nil {
		j.endGzip(c)
	}
	j.cur = nil
	j.sized += c.size
	c.res = &j.files[len(j.files)-1]
	if c.reader != nil {
		// A trace whose reading stopped counts up to where it stopped:
		// the same bytes from every host, whatever their chunks.
		if at, ok := c.reader.StoppedAt(); ok && c.nulPrefix+at < c.res.Bytes {
			c.res.Bytes = c.nulPrefix + at
			c.digest.cut(c.res.Bytes)
		}
	}
	j.digests = append(j.digests, c.digest.sum())
	if c.kind == "" {
		j.decide(c)
		p := c.sniff
		c.sniff = nil
		j.route(c, p)
	}
	if j.rocEnd(c) {
		c.kind = "rocprof"
	}
	switch c.kind {
	case "empty":
		c.res.Kind, c.res.Problem = "unknown", "empty file"
	case "blank":
		c.res.Kind, c.res.Problem = "unknown", "no content: only whitespace or a byte-order mark"
	case "unknown":
		c.res.Kind, c.res.Problem = "unknown", "unknown format: binary data, neither a JSON trace nor a text log"
		if c.archive != "" {
			c.res.Problem = c.archive
		}
	case "log":
		j.crash.EndFile()
		j.nlogs++
		c.res.Kind = "log"
		if j.crash.SideDocOver() { // a flight-recorder pickle
			c.res.Partial, c.res.Problem = true, j.sideDocOver()
		} else if p := j.crash.FileProblem(); p != "" {
			c.res.Partial, c.res.Problem = true, p
		}
		if c.res.Problem != "" {
			j.crash.NoteProblem(c.res.Problem)
		}
	case "json":
		f := c.reader.Close()
		switch {
		case f.SawEvents:
			c.res.Kind = "trace"
			c.res.Partial, c.res.Problem = f.Partial(), f.Problem
			c.res.Problems = f.Problems()
		case !c.headBig && f.Complete && limits.Depth(c.head, j.opts.Limits.Depth) > j.opts.Limits.Depth:
			f.Ignore = true
			c.res.Kind = "unknown"
			c.res.Problem = fmt.Sprintf("JSON nested deeper than %d levels (--max-depth): not read", j.opts.Limits.Depth)
		case !c.headBig && f.Complete && identity.IsSidecar(c.res.Name):
			// The server's configuration, written beside the traces.
			f.Ignore = true
			c.res.Kind = "json"
			if id, ok := identity.FromServerArgs(c.head); ok {
				if g := j.opts.Run.ServerFlags; g != "" && id.ServerFlags != "" && g != id.ServerFlags && j.opts.Command != "diff" {
					// Never silently: the command line wins, and says so.
					c.res.Problem = "its server flags differ from --server-flags, which win: server_flags in the artifacts is --server-flags' text, not this file's"
				}
				j.sidecar.Fill(id)
				if j.sidecars == nil {
					j.sidecars = map[int]identity.Identity{}
				}
				j.sidecars[len(j.files)-1] = id
			} else {
				c.res.Problem = "not a server-info document (no model or tensor-parallel size): ignored"
			}
		case j.opts.Command == "ranks":
			// gputriage ranks reads the rank summaries extract wrote.
			f.Ignore = true
			c.res.Kind = "json"
			switch {
			case c.headBig && c.headLen > limits.RankSummaryBytes:
				c.res.Kind, c.res.Problem = "unknown", fmt.Sprintf("larger than %d MiB: not a rank summary", limits.RankSummaryBytes>>20)
			case c.headBig:
				// never silently: the other summaries are matched without it
				c.res.Partial = true
				c.res.Problem = fmt.Sprintf("not read: with it the rank summaries would hold more than %d MiB in all (limits.RankSummariesBytes; %d MiB read before it)", limits.RankSummariesBytes>>20, j.sumBytes>>20)
			default:
				if s, err := collectives.ParseSummary(c.head); err != nil {
					c.res.Kind, c.res.Problem = "unknown", err.Error()
				} else {
					j.sums = append(j.sums, s)
					j.sumBytes += int64(len(c.head))
				}
			}
		case !c.headBig && f.Complete && j.opts.Command == "diff" && isArtifact(c.head):
			// A gputriage artifact (profile_metadata.json, kernel_table.json,
			// …) standing for a run already analysed.
			f.Ignore = true
			c.res.Kind = "json"
			j.docs = append(j.docs, artifactDoc{file: len(j.files) - 1, name: c.res.Name, body: c.head})
		case j.opts.Command != "diff" && (c.ours || !c.headBig && f.Complete && isArtifact(c.head)):
			// An earlier run's artifact left beside the traces (-o into
			// their folder): neither a trace nor crash evidence — read as
			// evidence, a crash_diagnosis.json would confirm itself.
			f.Ignore = true
			c.res.Kind, c.res.artifact = "json", true
			c.res.Problem = "a gputriage artifact (an earlier run's output), not an input: ignored"
		case !c.headBig && f.Complete && j.opts.Command != "breakdown" && j.opts.Command != "triage":
			// A JSON side document (crash_diagnostics.json, a dump's
			// metadata.json): evidence for the crash analysis.
			c.res.Kind = "json"
			f.Ignore = true
			j.crash.BeginFile(c.res.Name)
			j.crash.Write(c.head)
			j.crash.EndFile()
			j.nlogs++
		case c.headBig && !f.SawEvents && f.Complete && j.opts.Command != "breakdown" && j.opts.Command != "triage" && j.opts.Command != "diff":
			// A side document too big to decode whole: say so rather
			// than "no crash evidence".
			f.Ignore = true
			c.res.Kind = "json"
			c.res.Partial, c.res.Problem = true, j.sideDocOver()
			if j.crash != nil { // a crash input, as the same document under the limit
				j.crash.Unread(c.res.Name, c.res.Bytes, c.res.Problem)
				j.nlogs++
			}
		default:
			f.Ignore = true
			c.res.Kind = "unknown"
			c.res.Problem = "JSON without traceEvents: not a PyTorch profiler trace"
			if b := bytes.TrimLeft(c.head, " \t\r\n\xef\xbb\xbf"); len(b) > 0 && b[0] == '"' {
				c.res.Problem = "a JSON string, not a PyTorch profiler trace (a JSON object with traceEvents)"
			} else if f.Problem != "" {
				c.res.Problem += " (" + f.Problem + ")"
			}
		}
		c.head = nil
	}
	if c.hostErr != "" {
		c.res.Partial = true
		if c.res.Problem != "" {
			c.res.Problem = c.hostErr + "; " + c.res.Problem
		} else {
			c.res.Problem = c.hostErr
		}
		if c.reader != nil {
			f := c.reader.File()
			f.Complete = false
			f.Problem = c.res.Problem
		}
	}
}

// Finish runs the analyses and returns the artifacts.
func (j *Job) Finish() *Result {
	if j.cur != nil {
		j.EndFile()
	}
	if j.opts.Command == "perfetto-fix" {
		return j.fixFinish()
	}
	j.flushCSV()
	res := &Result{Files: j.files, Artifacts: []Artifact{}}
	if res.Files == nil {
		res.Files = []FileResult{}
	}
	var traces []int
	for i := range j.store.Files {
		if !j.store.Files[i].Ignore {
			traces = append(traces, i)
		}
	}
	var stores []*trace.Store
	for _, st := range j.stores {
		if len(st.Files) > 0 && !st.Files[0].Ignore {
			stores = append(stores, st)
		}
	}
	var problems []string
	for i := range j.files {
		// torch.save tensors (zip archives) inside a level-10 dump folder
		// whose metadata was read are part of that evidence, not an
		// unreadable input: listed, not opened.
		if f := &j.files[i]; f.zip && j.crash != nil && j.crash.DumpFolder(path.Dir(strings.ReplaceAll(f.Name, "\\", "/"))) {
			f.Kind, f.Problem = "tensor", ""
		}
	}
	if len(j.files) > 0 && !slices.ContainsFunc(j.files, func(f FileResult) bool { return !f.artifact }) {
		// Only artifacts: nothing of this run's kind was given.
		for i := range j.files {
			j.files[i].Kind = "unknown"
			j.files[i].Problem = "a gputriage artifact (an earlier run's output), not an input; to compare two runs' artifacts use gputriage diff"
		}
	}
	for _, f := range j.files {
		switch {
		case f.Kind == "unknown":
			res.ExitCode = ExitUsage
			problems = append(problems, f.Name+": "+f.Problem)
		case f.Partial && res.ExitCode == ExitOK:
			res.ExitCode = ExitPartial
		}
	}
	if len(j.files) == 0 {
		res.ExitCode = ExitUsage
		problems = append(problems, "no input files")
	}
	if p := j.noTrace(traces, stores); p != "" && res.ExitCode != ExitUsage {
		res.ExitCode = ExitUsage
		problems = append(problems, p)
	}
	res.Error = strings.Join(problems, "; ")

	wantCrash := j.opts.Command == "diagnose" || j.nlogs > 0
	switch {
	case j.opts.Command == "ranks":
		arts, err := j.reduceRanks()
		if err != nil {
			res.ExitCode = ExitUsage
			res.Error = strings.TrimPrefix(res.Error+"; "+err.Error(), "; ")
		}
		res.Artifacts = append(res.Artifacts, arts...)
		if len(arts) > 0 {
			// the run id of the one-machine run over the same traces
			j.digests = j.digests[:0]
			for _, s := range j.sums {
				j.digests = append(j.digests, s.Digest)
			}
		}
	case j.opts.Command == "diff":
		arts, code, err := j.diff(stores)
		if err != nil {
			res.ExitCode = ExitUsage
			res.Error = strings.TrimPrefix(res.Error+"; "+err.Error(), "; ")
		} else if code != ExitOK && res.ExitCode <= ExitPartial {
			res.ExitCode = code
		}
		res.Artifacts = append(res.Artifacts, arts...)
	case j.perTrace() && len(stores) > 0:
		var refs []traceRef
		for _, st := range stores {
			refs = append(refs, traceRef{st, 0})
		}
		runs, err := j.separateRuns(refs)
		res.Runs = runs
		var arts []Artifact
		if err == nil {
			arts, err = j.triage(stores)
		}
		if err != nil {
			res.ExitCode = ExitUsage
			res.Error = strings.TrimPrefix(res.Error+"; "+err.Error(), "; ")
			break
		}
		res.Artifacts = append(res.Artifacts, arts...)
	case j.opts.Command != "diagnose" && len(traces) > 0:
		var refs []traceRef
		for _, fi := range traces {
			refs = append(refs, traceRef{j.store, fi})
		}
		runs, err := j.separateRuns(refs)
		res.Runs = runs
		if err != nil {
			res.ExitCode = ExitUsage
			res.Error = strings.TrimPrefix(res.Error+"; "+err.Error(), "; ")
			break
		}
		// Each rank alone first (a rank folder), then the union: a rank's
		// copy and transients are gone before the union's analysis.
		var parts []rankPart
		for _, fi := range traces {
			parts = append(parts, rankPart{j.store, fi, nil})
		}
		var a *report.Analysis
		var rl *roofline.Result
		var own []Artifact
		var rankArts []Artifact
		if rr := j.perRank(parts, true); rr != nil {
			// a rank folder: its top level from the ranks' own analyses
			a, rl, own = rr.topLevel(j.store, traces), rr.roofline, rr.arts
			if len(rr.sums) >= 2 {
				res := j.match(rr.sums)
				rankArts = crossArtifacts(a, res)
				if j.opts.MergeRanks {
					rankArts = append(rankArts, j.mergedTrace(parts, rr.sums, res))
				}
			}
		} else {
			joins := callsite.NewJoins(j.store) // shared by the breakdown and the roofline
			a = j.analyzeTraces(j.store, traces, joins)
			rl = j.roofline(a, joins, j.store)
			for i := range parts {
				parts[i].joins = joins
			}
		}
		if j.opts.Command == "extract" {
			art, err := j.extractSummary(parts)
			if err != nil {
				res.ExitCode = ExitUsage
				res.Error = strings.TrimPrefix(res.Error+"; "+err.Error(), "; ")
				break
			}
			rankArts = append(rankArts, art)
			if res.ExitCode == ExitOK && slices.ContainsFunc(j.files, func(f FileResult) bool { return f.Partial }) {
				res.ExitCode = ExitPartial // the summary was cut (limits.CollectiveOps)
			}
		}
		res.Artifacts = append(res.Artifacts,
			Artifact{"profile_summary.md", string(report.Summary(a))},
			Artifact{"roofline.json", string(rl.JSON(a.Partial()))},
			Artifact{"profile_metadata.json", string(report.Metadata(a))},
			Artifact{"kernel_table.json", string(report.KernelTable(a))},
			Artifact{"breakdown.json", string(report.Breakdown(a))},
			Artifact{"gpu_timeline.json", string(report.Timeline(a))},
			Artifact{"gpu_lanes.json", string(report.Lanes(a))},
		)
		j.drawn = a
		res.Artifacts = append(res.Artifacts, whyArtifacts(a)...)
		res.Artifacts = append(res.Artifacts, rankArts...)
		res.Artifacts = append(res.Artifacts, own...)
	}
	if wantCrash {
		d := j.crash.Diagnosis()
		res.Artifacts = append(res.Artifacts,
			Artifact{"crash_summary.md", string(d.Markdown())},
			Artifact{"crash_diagnosis.json", string(d.JSON())},
		)
	}
	if j.crossPartial && res.ExitCode == ExitOK {
		res.ExitCode = ExitPartial
	}
	if p := j.unknownStage(); p != "" {
		res.ExitCode = ExitUsage
		res.Error = strings.TrimPrefix(res.Error+"; "+p, "; ")
	}
	j.stampAll(res)
	return res
}

// noTrace says, for a command that analyses traces, that none of the
// inputs is one, naming each input and what it was read as.
func (j *Job) noTrace(traces []int, stores []*trace.Store) string {
	switch j.opts.Command {
	case "breakdown", "triage", "overlap":
	default:
		return ""
	}
	if len(traces) > 0 || len(stores) > 0 || len(j.files) == 0 {
		return ""
	}
	var names []string
	for _, f := range j.files {
		names = append(names, f.Name+" ("+f.Kind+")")
	}
	return "no profiler trace in the input: " + strings.Join(names, ", ") + " (a trace is a PyTorch/Kineto JSON with traceEvents; crash logs go to diagnose)"
}

// unknownStage says that --stage names a stage no analysed trace has.
func (j *Job) unknownStage() string {
	if j.opts.Stage == "" || len(j.stagesSeen) == 0 || j.stagesSeen[j.opts.Stage] {
		return ""
	}
	seen := make([]string, 0, len(j.stagesSeen))
	for s := range j.stagesSeen {
		if s != "" {
			seen = append(seen, s)
		}
	}
	slices.Sort(seen)
	return fmt.Sprintf("--stage %q: no such stage with GPU work in the traces (they have: %s)", j.opts.Stage, strings.Join(seen, ", "))
}

func (j *Job) analyzeTraces(st *trace.Store, files []int, joins *callsite.Joins) *report.Analysis {
	a := &report.Analysis{Store: st, TraceFiles: files, Target: j.opts.TargetArch, StageFilter: j.opts.Stage, Identity: j.identity()}
	if joins == nil {
		joins = callsite.NewJoins(st)
	}
	a.Breakdown = breakdown.Analyze(st, breakdown.Options{Stage: j.opts.Stage, Joins: joins})
	ids, names := a.Breakdown.OpStage, a.Breakdown.StageNames
	if j.stagesSeen == nil {
		j.stagesSeen = map[string]bool{}
	}
	for _, n := range names {
		j.stagesSeen[n] = true
	}
	a.Idle = idle.Analyze(st, idle.Options{Stage: j.opts.Stage, Joins: joins, StageOf: ids, StageNames: names})
	a.Steps = steps.Analyze(st, a.Idle, steps.Options{Stage: j.opts.Stage, OpStage: ids, StageNames: names})
	stepLeads(a)
	a.Launch = launch.Analyze(st, launch.Options{Stage: j.opts.Stage, Joins: joins, StageOf: ids, StageNames: names, Idle: a.Idle, Classes: a.Breakdown.Classes})
	if fw := fuse.DetectFramework(st); fw != fuse.FrameworkPyTorch {
		a.Framework = fw
	}
	fileStage := fileStages(st, ids, names)
	for _, fi := range files {
		tl := timeline.Compute(st, fi)
		tl.Stage = fileStage[fi]
		a.Timelines = append(a.Timelines, tl)
		a.Facts = append(a.Facts, timeline.ComputeFacts(st, fi))
	}

	// Hardware evidence: the first file's deviceProperties, ISA tokens of
	// kernel names, the runtime API's vendor.
	var ev arch.Evidence
	for _, fi := range files {
		h := st.Files[fi].Header
		if ev.Devices == nil {
			ev.Devices = arch.ParseDevices(h["deviceProperties"])
		}
		if a.ROCmVersion == "" {
			if v, ok := hipVersion(h["hip_runtime_version"]); ok {
				a.HIPVersion = v
				a.ROCmVersion = v[:strings.LastIndexByte(v, '.')]
			}
		}
		if a.CUDAVersion == "" {
			a.CUDAVersion = cudaVersion(h["cuda_runtime_version"])
		}
		if a.Distributed == nil {
			a.Distributed = distributed(h["distributedInfo"])
		}
		r := report.RankInfo{File: st.Files[fi].Name, Rank: -1}
		if d := distributed(h["distributedInfo"]); d != nil {
			r.Rank = d.Rank
		}
		a.Ranks = append(a.Ranks, r)
	}
	// Per-op loops: name ids index slices, the last device is remembered,
	// and the loops run in chunks (callsite.Chunks: V8 tiers up between).
	seen := make([]bool, len(st.Names))
	isa := map[string]int{}
	devs := map[int]bool{}
	lastDev, haveDev := int64(0), false
	callsite.Chunks(len(st.GPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o := &st.GPU[i]
			if !o.Kind.IsGPUWork() {
				continue
			}
			if !haveDev || o.Device != lastDev {
				devs[int(o.Device)] = true
				lastDev, haveDev = o.Device, true
			}
			if o.Kind != trace.KindKernel || seen[o.Name] {
				continue
			}
			seen[o.Name] = true
			if t, _ := kernels.ISA(st.Name(o.Name)); t != "" {
				isa[t]++
			}
		}
	})
	ev.ISA = arch.SortISA(isa)
	// The runtime API's vendor, decided once per call name.
	const unknown, other, isHIP, isCUDA = 0, 1, 2, 3
	vendor := make([]byte, len(st.Names))
	hip, cuda := 0, 0
	callsite.Chunks(len(st.CPU), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := &st.CPU[i]
			if c.Kind != trace.KindRuntime && c.Kind != trace.KindDriver {
				continue
			}
			v := vendor[c.Name]
			if v == unknown {
				switch n := st.Name(c.Name); {
				case strings.HasPrefix(n, "hip"):
					v = isHIP
				case strings.HasPrefix(n, "cuda") || strings.HasPrefix(n, "cu"):
					v = isCUDA
				default:
					v = other
				}
				vendor[c.Name] = v
			}
			switch v {
			case isHIP:
				hip++
			case isCUDA:
				cuda++
			}
		}
	})
	switch {
	case hip > cuda:
		ev.Vendor = "amd"
	case cuda > hip:
		ev.Vendor = "nvidia"
	}
	a.Arch = arch.Decide(ev, j.opts.TargetArch)
	for d := range devs {
		a.DeviceIDs = append(a.DeviceIDs, d)
	}
	slices.Sort(a.DeviceIDs)
	return a
}

// whyArtifacts writes idle.json and launch_stats.json.
func whyArtifacts(a *report.Analysis) []Artifact {
	return []Artifact{
		{"idle.json", string(a.Idle.JSON(report.Tool, report.Version, a.Partial()))},
		{"steps.json", string(a.Steps.JSON(report.Tool, a.Partial()))},
		{"launch_stats.json", string(a.Launch.JSON(report.Tool, report.Version, a.Partial()))},
	}
}

// hipVersion decodes hip_runtime_version (major·10⁷ + minor·10⁵ + patch).
func hipVersion(raw []byte) (string, bool) {
	v, err := strconv.ParseInt(strings.Trim(string(raw), `" `), 10, 64)
	if err != nil || v <= 0 {
		return "", false
	}
	return fmt.Sprintf("%d.%d.%d", v/10000000, v/100000%100, v%100000), true
}

// cudaVersion decodes cuda_runtime_version (13000 → 13.0).
func cudaVersion(raw []byte) string {
	v, err := strconv.ParseInt(strings.Trim(string(raw), `" `), 10, 64)
	if err != nil || v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

func distributed(raw []byte) *report.Distributed {
	if len(raw) == 0 {
		return nil
	}
	var d struct {
		Backend   string `json:"backend"`
		Rank      int    `json:"rank"`
		WorldSize int    `json:"world_size"`
		Version   any    `json:"nccl_version"`
	}
	if json.Unmarshal(raw, &d) != nil || d.Backend == "" {
		return nil
	}
	out := &report.Distributed{Backend: d.Backend, Rank: d.Rank, WorldSize: d.WorldSize}
	if d.Version != nil {
		out.Version = fmt.Sprint(d.Version)
	}
	return out
}

// stepLeads puts each stage's step figures first among the takeaways, and
// the step table among the sections.
func stepLeads(a *report.Analysis) {
	withSteps := 0
	for _, s := range a.Steps.Stages {
		if s.Steps > 0 {
			withSteps++
		}
	}
	culprit := ""
	if withSteps == 1 && len(a.Idle.Steps.Culprits) > 0 {
		c := a.Idle.Steps.Culprits[0]
		if c.Frame != "" && !callsite.Meaningful(c.Frame) && len(a.Idle.Steps.Framework) > 0 {
			// torch's or Triton's frame: name the framework code under it
			c = a.Idle.Steps.Framework[0]
		}
		if culprit = c.Frame; culprit == "" {
			culprit = c.CPUOp
		}
		if culprit != "" {
			culprit = "`" + escape.MarkdownCode(culprit) + "`"
		}
	}
	for i := range a.Steps.Stages {
		s := &a.Steps.Stages[i]
		if l := s.Lead(culprit); l != "" {
			a.First = append(a.First, s.Stage+": "+l)
		}
	}
	if md := a.Steps.Markdown(); md != nil {
		a.Sections = append(a.Sections, string(md))
	}
}

// fileStages names, per file, the stage all of its GPU work is in (one
// stage file of a --profile-by-stage folder), or "" when its work spans
// several stages or none is named.
func fileStages(st *trace.Store, opStage []uint8, names []string) []string {
	const mixed = 255
	id := make([]int, len(st.Files)) // 1 + stage id, 0 = no op yet, mixed
	for i := range st.GPU {
		o := &st.GPU[i]
		if !o.Kind.IsGPUWork() || i >= len(opStage) {
			continue
		}
		switch v := int(opStage[i]) + 1; id[o.File] {
		case 0:
			id[o.File] = v
		case v, mixed:
		default:
			id[o.File] = mixed
		}
	}
	out := make([]string, len(st.Files))
	for f, v := range id {
		if v > 0 && v != mixed && v-1 < len(names) {
			if s := names[v-1]; s != callsite.StageAll && s != callsite.StageOther {
				out[f] = s
			}
		}
	}
	return out
}
