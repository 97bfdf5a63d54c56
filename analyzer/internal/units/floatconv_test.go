package units

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// checkedConversions are the float → integer conversions of the analyzer
// and the CLI that do not go through Trunc, each with the range check
// that keeps its operand inside the target type (docs/limits.md,
// "Values"): outside it the result is the platform's (amd64 gives -2⁶³
// where wasm saturates), and the engines would disagree. Keyed by file
// (from the module root) and the conversion as written.
var checkedConversions = map[string]string{
	"analyzer/internal/units/units.go: int64(x)":                                "Trunc itself",
	"analyzer/internal/jsontext/jsontext.go: int64(math.Floor(f * 1000 + 0.5))": "|f·1000| < 9·10¹⁸ checked first",
	"analyzer/diffjob.go: int64(-us * 1000 + 0.5)":                              "|us·1000| < MaxArtifactNS checked first",
	"analyzer/diffjob.go: int64(us * 1000 + 0.5)":                               "|us·1000| < MaxArtifactNS checked first",
	"analyzer/crash/flightrecorder.go: int64(x)":                                "pyInt: inside int64 and integral checked first",
	"analyzer/roofline/moe.go: int64(v)":                                        "0 < v < 2⁴⁰, integral, checked first",
	"analyzer/collectives/match.go: int(math.Ceil(-math.Log10(math.Abs(x))))":   "gbps: 0 < |x| < 1 finite, so at most 324",
	"analyzer/crash/finalize.go: int(a.conf * 100 + 0.5)":                       "a confidence in 0 … 1",
	"analyzer/launch/launch.go: int(math.Ceil(p * float64(len(v))))":            "a percentile 0 < p ≤ 1 of a slice length",
	"cmd/gputriage/profile.go: int(tp)":                                         "a server's tp_size: 1 ≤ tp ≤ 2²⁰, integral, checked first",
	"analyzer/steps/steps.go: int(math.Floor(r))":                               "r = p/100·(n−1) for 0 ≤ p ≤ 100",
}

// Every float → integer conversion in the analyzer and the CLI is Trunc or
// a listed, range-checked one (issue 24: flight recorder 1e30 was a
// collective timeout under wasm and nothing natively). A new one fails
// here: route it through Trunc, or check its range and list it.
func TestFloatConversionsChecked(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Module", "./analyzer/...", "./cmd/...")
	cmd.Dir = root
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v %s", err, stderr.String())
	}
	type pkg struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		Module                  *struct{ Path string }
	}
	exports := map[string]string{}
	var ours []pkg
	for dec := json.NewDecoder(&out); ; {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == "github.com/gputriage/gputriage" {
			ours = append(ours, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return openFile(exports[path])
	})
	seen := map[string]bool{}
	for _, p := range ours {
		var files []*ast.File
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, af)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				to, ok := info.Types[call.Fun]
				if !ok || !to.IsType() || !isKind(to.Type, types.IsInteger) {
					return true
				}
				arg := info.Types[call.Args[0]]
				if arg.Value != nil || arg.Type == nil || !isKind(arg.Type, types.IsFloat) {
					return true
				}
				pos := fset.Position(call.Pos())
				rel, _ := filepath.Rel(root, pos.Filename)
				key := filepath.ToSlash(rel) + ": " + types.ExprString(call)
				seen[key] = true
				if _, ok := checkedConversions[key]; !ok {
					t.Errorf("%s:%d: %s converts a float to an integer unchecked: use units.Trunc, or check the range and list it in checkedConversions",
						filepath.ToSlash(rel), pos.Line, types.ExprString(call))
				}
				return true
			})
		}
	}
	for k := range checkedConversions {
		if !seen[k] {
			t.Errorf("checkedConversions lists %q, which no longer exists: drop it", k)
		}
	}
}

func isKind(t types.Type, k types.BasicInfo) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&k != 0
}

func openFile(name string) (io.ReadCloser, error) { return os.Open(name) }
