package crash

// Line prefilter: one pass over each line finds every keyword any parser
// (or the normaliser) cares about, using an Aho–Corasick automaton compiled
// once into a byte-class DFA. The result is a bit mask; a parser sees a line
// only when one of its keyword bits is set or when it is in a multi-line
// state (parser.active). The keyword lists are necessary conditions: every
// parser still runs its own checks, so a keyword that fires too often only
// costs time, while a missing keyword would change results. Each list
// lives beside the parser it feeds (rocrKeywords in rocr.go …) so a new
// wording touches one file; it is derived from the early returns / branch conditions of the parser
// it feeds (the conditions test l.text, a substring of the raw line, so a
// keyword absent from the raw line is absent from the text). Any substring
// of a required string is a valid keyword: "Kernel (" stands for clr's
// "LaunchKernel (", and buildAC cuts keywords to acMaxLen bytes.

import (
	"sync"
	"unsafe"
)

const (
	kwROCr uint64 = 1 << iota
	kwCLR
	kwCLRReturned // "Returned hip": the clr parser refines it (clrParser.skip)
	kwAgent
	kwDmesg
	kwTorch
	kwNCCL
	kwExit
	kwRocgdb
	kwKernelAPI
	kwLaunch
	kwHang
	kwTriton
	kwNvidia
	kwContainer
	kwEvidence
	kwIncident
	kwFramework

	// kwTorchRaw: keywords the torch parser looks for in l.raw (prefixes kept).
	kwTorchRaw
	// kwIncidentRaw: a "[rankN]" prefix (the incident parser counts ranks)
	kwIncidentRaw

	// normaliser: characters / markers that may make the raw line differ
	// from the input bytes (ANSI codes, tqdm bars, ComfyUI stamps).
	kwSpecial

	// prefixes with side effects (input formats recorded while stripping)
	kwFmtDmesg
	kwFmtHIP
	kwFmtCompose
)

// kwParsers are the bits of parser keywords.
const kwParsers = kwSpecial - 1

// kwRawOnly are bits that must be taken from the raw line even when the
// text (prefixes stripped) is rescanned.
const kwRawOnly = kwTorchRaw | kwIncidentRaw

var kwLists = []struct {
	bit   uint64
	words []string
}{
	{kwROCr, rocrKeywords},
	{kwCLR, clrKeywords},
	{kwCLRReturned, clrReturnedKeywords},
	{kwAgent, agentKeywords},
	{kwDmesg, dmesgKeywords},
	{kwTorch, torchKeywords},
	{kwTorchRaw, torchRawKeywords},
	{kwNCCL, ncclKeywords},
	{kwExit, exitKeywords},
	{kwRocgdb, rocgdbKeywords},
	{kwKernelAPI, kernelAPIKeywords},
	{kwLaunch, launchKeywords},
	{kwHang, hangKeywords},
	{kwTriton, tritonKeywords},
	{kwNvidia, nvidiaKeywords},
	{kwEvidence, evidenceKeywords},
	{kwContainer, containerKeywords},
	{kwIncident, incidentKeywords},
	{kwIncidentRaw, incidentRawKeywords},
	{kwFramework, frameworkKeywords},

	// ESC, literal ANSI escapes (all contain a backslash), tqdm rates, " - " of a ComfyUI stamp
	{kwSpecial, []string{"\x1b", "\\", "it/s]", "s/it]", "B/s]", " - "}},
	// reDmesg / reDmesgT end in a digit and "]"; syslog / journald need the "kernel" tag
	{kwFmtDmesg, []string{"0]", "1]", "2]", "3]", "4]", "5]", "6]", "7]", "8]", "9]", "kernel"}},
	{kwFmtHIP, []string{" us:"}},
	{kwFmtCompose, []string{"| "}},
}

// The automaton: acClass maps a byte to its class; acTrans[state+class]
// is the next state, with states pre-multiplied by acNClass; acOut[state/acNClass]
// is the union of the bits of every keyword ending there.
var (
	acClass  [256]uint8
	acNClass int
	acTrans  []uint32
	acOut    []uint64
)

// acBuilt builds the automaton on first use: gputriage.wasm starts for
// every command and job, and most never scan a log (building it was 3 % of
// a small trace's `--engine wasm` run).
var acBuilt sync.Once

func buildAC() {
	// byte classes: one per byte used in a keyword, class 0 for the rest
	n := 1
	for _, g := range kwLists {
		for _, w := range g.words {
			for i := 0; i < len(w); i++ {
				if acClass[w[i]] == 0 {
					acClass[w[i]] = uint8(n)
					n++
				}
			}
		}
	}
	acNClass = n
	// trie
	type node struct {
		next []int32
		fail int32
		out  uint64
	}
	newNode := func() node {
		nx := make([]int32, n)
		for i := range nx {
			nx[i] = -1
		}
		return node{next: nx}
	}
	nodes := []node{newNode()}
	for _, g := range kwLists {
		for _, w := range g.words {
			if len(w) > acMaxLen {
				w = w[:acMaxLen] // a prefix is a weaker but still necessary condition
			}
			st := int32(0)
			for i := 0; i < len(w); i++ {
				c := acClass[w[i]]
				if nodes[st].next[c] < 0 {
					nodes = append(nodes, newNode())
					nodes[st].next[c] = int32(len(nodes) - 1)
				}
				st = nodes[st].next[c]
			}
			nodes[st].out |= g.bit
		}
	}
	// BFS: failure links, complete the transition function
	queue := make([]int32, 0, len(nodes))
	for c := 0; c < n; c++ {
		if nx := nodes[0].next[c]; nx < 0 {
			nodes[0].next[c] = 0
		} else {
			nodes[nx].fail = 0
			queue = append(queue, nx)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		f := nodes[st].fail
		nodes[st].out |= nodes[f].out
		for c := 0; c < n; c++ {
			nx := nodes[st].next[c]
			if nx < 0 {
				nodes[st].next[c] = nodes[f].next[c]
				continue
			}
			nodes[nx].fail = nodes[f].next[c]
			queue = append(queue, nx)
		}
	}
	acTrans = make([]uint32, len(nodes)*n)
	acOut = make([]uint64, len(nodes))
	for i, nd := range nodes {
		for c := 0; c < n; c++ {
			nx := nd.next[c]
			v := uint32(int(nx) * n)
			if nodes[nx].out != 0 {
				v |= acHit
			}
			acTrans[i*n+c] = v
		}
		acOut[i] = nd.out
	}
}

// acHit flags a transition into a state where a keyword ends.
const acHit = 1 << 31

// acMaxLen bounds the keyword length (smaller automaton, short overlap
// between the two halves scanned by kwScan).
const acMaxLen = 12

// kwScan returns the union of the bits of all keywords occurring in b. Long
// lines are scanned as two halves at once (two independent chains of table
// look-ups); the second half starts acMaxLen-1 bytes early so that every
// keyword lies wholly inside one of them.
func kwScan(b []byte) uint64 {
	acBuilt.Do(buildAC)
	if len(b) >= 64 {
		mid := len(b) / 2
		return kwScan2(b[:mid], b[mid-(acMaxLen-1):])
	}
	var m uint64
	st := uint32(0)
	trans := acTrans
	for _, c := range b {
		st = trans[st+uint32(acClass[c])]
		if st&acHit != 0 {
			st &^= acHit
			m |= acOut[st/uint32(acNClass)]
		}
	}
	return m
}

func kwScan2(x, y []byte) uint64 {
	var m uint64
	sx, sy := uint32(0), uint32(0)
	trans := acTrans
	nc := uint32(acNClass)
	n := len(x)
	if len(y) < n {
		n = len(y)
	}
	x, y = x[:len(x)], y[:len(y)]
	for i := 0; i < n; i++ {
		sx = trans[sx+uint32(acClass[x[i]])]
		sy = trans[sy+uint32(acClass[y[i]])]
		if (sx|sy)&acHit != 0 {
			if sx&acHit != 0 {
				sx &^= acHit
				m |= acOut[sx/nc]
			}
			if sy&acHit != 0 {
				sy &^= acHit
				m |= acOut[sy/nc]
			}
		}
	}
	for i := n; i < len(x); i++ {
		sx = trans[sx+uint32(acClass[x[i]])]
		if sx&acHit != 0 {
			sx &^= acHit
			m |= acOut[sx/nc]
		}
	}
	for i := n; i < len(y); i++ {
		sy = trans[sy+uint32(acClass[y[i]])]
		if sy&acHit != 0 {
			sy &^= acHit
			m |= acOut[sy/nc]
		}
	}
	return m
}

// kwScanString is kwScan for a string.
func kwScanString(s string) uint64 {
	acBuilt.Do(buildAC)
	if len(s) >= 64 {
		return kwScan(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	var m uint64
	st := uint32(0)
	trans := acTrans
	for i := 0; i < len(s); i++ {
		st = trans[st+uint32(acClass[s[i]])]
		if st&acHit != 0 {
			st &^= acHit
			m |= acOut[st/uint32(acNClass)]
		}
	}
	return m
}

// Per-parser gates: gate is the parser's keyword bit, active reports a
// multi-line state in which the parser must see every line (it consumes or
// counts lines that carry no keyword).

func (p *rocrParser) gate() uint64         { return kwROCr }
func (p *rocrParser) active(int) bool      { return p.mfe != "" }
func (p *clrParser) gate() uint64          { return kwCLR | kwCLRReturned }
func (p *clrParser) active(int) bool       { return false }
func (p *agentParser) gate() uint64        { return kwAgent }
func (p *agentParser) active(int) bool     { return p.dis != nil }
func (p *dmesgParser) gate() uint64        { return kwDmesg }
func (p *dmesgParser) active(int) bool     { return false }
func (p *torchParser) gate() uint64        { return kwTorch | kwTorchRaw }
func (p *torchParser) active(int) bool     { return p.wantCode }
func (p *ncclParser) gate() uint64         { return kwNCCL }
func (p *ncclParser) active(int) bool      { return p.wrap != nil || p.frt != nil }
func (p *exitParser) gate() uint64         { return kwExit }
func (p *exitParser) active(int) bool      { return false }
func (p *rocgdbParser) gate() uint64       { return kwRocgdb }
func (p *kernelAPIParser) gate() uint64    { return kwKernelAPI }
func (p *kernelAPIParser) active(int) bool { return p.rec.open }
func (p *launchParser) gate() uint64       { return kwLaunch }
func (p *launchParser) active(int) bool    { return false }
func (p *hangParser) gate() uint64         { return kwHang }
func (p *hangParser) active(int) bool      { return p.inDump }
func (p *tritonParser) gate() uint64       { return kwTriton }
func (p *tritonParser) active(int) bool    { return p.wantName > 0 }
func (p *nvidiaParser) gate() uint64       { return kwNvidia }
func (p *nvidiaParser) active(int) bool    { return false }

// rocgdb reads the lines after a stop banner (stopContext).
func (p *rocgdbParser) active(no int) bool {
	if p.g.dumpActive(no) {
		return true
	}
	if len(p.stops) == 0 {
		return false
	}
	st := p.stops[len(p.stops)-1]
	return !(no-st.l.no > gdbStopWindow || st.frames >= 4)
}

// A refiner looks closer at a line its keywords let through; skip(mask,
// text) true means line(l) would do nothing (only asked while the parser
// is not active).
type refiner interface {
	skip(mask uint64, text string) bool
}

// skip: with no other clr keyword, only trace can act, and only on a
// "Returned hipX" other than hipSuccess (AMD_LOG_LEVEL logs are full of
// "Returned hipSuccess").
func (p *clrParser) skip(mask uint64, text string) bool {
	if mask&kwCLR != 0 {
		return false
	}
	_, name, ok := findReturned(text)
	return !ok || name == "hipSuccess"
}

// stateless parsers' active() is always false.
type stateless interface{ stateless() }

func (p *clrParser) stateless()    {}
func (p *dmesgParser) stateless()  {}
func (p *exitParser) stateless()   {}
func (p *launchParser) stateless() {}
func (p *nvidiaParser) stateless() {}

// keepLine returns a copy of l that a parser may keep beyond the current
// line (the session reuses the line it hands to the parsers).
func keepLine(l *line) *line {
	c := *l
	return &c
}
