package crash

import (
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// AMD_LOG_LEVEL API traces (CLR's hip_*.cpp lines): a kernel launch with
// its geometry, a function looked up by name in a module, and a call that
// returned an error. extractCLRTrace reads one line into a clrTrace fact;
// clrParser.trace rules over them.

type clrTraceKind uint8

const (
	ctLaunch      clrTraceKind = iota + 1 // hipLaunchKernel / hip[Ext]ModuleLaunchKernel ( fn, grid, block, shared … )
	ctGetFunction                         // hipModuleGetFunction ( &fn, module, name )
	ctNotFound                            // "Cannot find the function: name" (the lookup failed)
	ctReturned                            // "api: Returned hipErrorX"
)

type clrTrace struct {
	kind   clrTraceKind
	launch launchConfig // ctLaunch (fn, grid, block, shared)
	name   string       // ctGetFunction, ctNotFound: the function name
	api    string       // ctReturned
	status string       // ctReturned: the hipError name (never hipSuccess)
}

var (
	// the third argument is the name; the first two are the out pointer
	// and the module, printed "0x…" on Linux and bare hex on Windows
	reGetFunction = lazyre.New(`hipModuleGetFunction \( ?\S+, \S+, ([A-Za-z_][\w.$]*) ?\)`)
	reNotFoundFn  = lazyre.New(`Cannot find the function: ([A-Za-z_][\w.$]*)`)
)

func extractCLRTrace(t string) (clrTrace, bool) {
	if m, ok := matchHipLaunch(t); ok {
		return clrTrace{kind: ctLaunch, launch: launchConfig{fn: m[1], grid: [3]int64{atoi64(m[2]), atoi64(m[3]), atoi64(m[4])}, block: [3]int64{atoi64(m[5]), atoi64(m[6]), atoi64(m[7])}, shared: atoi64(m[8]), set: true}}, true
	}
	if strings.Contains(t, "ModuleLaunchKernel (") {
		if m := reHipModLaunch.FindStringSubmatch(t); m != nil {
			return clrTrace{kind: ctLaunch, launch: launchConfig{fn: m[1], grid: [3]int64{atoi64(m[2]), atoi64(m[3]), atoi64(m[4])}, block: [3]int64{atoi64(m[5]), atoi64(m[6]), atoi64(m[7])}, shared: atoi64(m[8]), set: true}}, true
		}
	}
	if m := findIf(t, "GetFunction (", reGetFunction); m != nil {
		return clrTrace{kind: ctGetFunction, name: m[1]}, true
	}
	if m := findIf(t, "Cannot find the function", reNotFoundFn); m != nil {
		return clrTrace{kind: ctNotFound, name: m[1]}, true
	}
	if api, name, ok := findReturned(t); ok && name != "hipSuccess" {
		return clrTrace{kind: ctReturned, api: api, status: name}, true
	}
	return clrTrace{}, false
}

// fetched keeps, per process, the functions it looked up by name. A
// hipModuleLaunchKernel's first argument is the handle the lookup wrote,
// not the address the lookup line prints, so a launch is tied to a name
// only when its process fetched exactly one function (rocBLAS / Tensile
// probe many modules: several names leave the kernel unnamed).
type fetched struct {
	names []string // distinct, at most maxFetched
	last  string   // the name of the latest lookup (its Returned line names none)
	many  bool
}

const maxFetched = 8

func (f *fetched) add(name string) {
	f.last = name
	if containsStr(f.names, name) {
		return
	}
	if len(f.names) >= maxFetched {
		f.many = true
		return
	}
	f.names = append(f.names, name)
}

func (f *fetched) drop(name string) {
	for i, n := range f.names {
		if n == name {
			f.names = append(f.names[:i], f.names[i+1:]...)
			return
		}
	}
}

// only returns the one function the process fetched, "" otherwise.
func (f *fetched) only() string {
	if f == nil || f.many || len(f.names) != 1 {
		return ""
	}
	return f.names[0]
}
