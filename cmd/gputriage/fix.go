package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gputriage/gputriage/analyzer"
)

// perfettoFix pushes the trace twice through the module (plan, then
// rewrite) and streams the rewritten bytes to DIR/perfetto_fixed_trace.json
// (.gz with --gzip), so a trace of any size works in bounded memory.
func perfettoFix(eng engine, path string, f flags, prog *progress, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "gputriage perfetto-fix: %v\n", err)
		return analyzer.ExitUsage
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fail(err)
	}
	if err := pushPath(eng, path, nil, prog); err != nil { // pass 1: plan
		return fail(fmt.Errorf("%s: %v", path, err))
	}
	name := "perfetto_fixed_trace.json"
	if f.gzip {
		name += ".gz"
	}
	outPath := filepath.Join(f.out, name)
	fh, err := os.Create(outPath)
	if err != nil {
		return fail(err)
	}
	defer fh.Close()
	bw := bufio.NewWriterSize(fh, 1<<20)
	var w io.Writer = bw
	var zw *gzip.Writer
	if f.gzip {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	drain := func() error {
		b, err := eng.TakeOutput()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	out := &drainEngine{engine: eng, drain: drain}
	if err := pushPath(out, path, nil, prog); err != nil { // pass 2: rewrite
		return fail(fmt.Errorf("%s: %v", path, err))
	}
	prog.done()
	res, err := eng.Finish()
	if err != nil {
		return fail(err)
	}
	if err := drain(); err != nil {
		return fail(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return fail(err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if res.Error != "" {
		os.Remove(outPath)
		return fail(fmt.Errorf("%s: %s", path, res.Error))
	}
	if err := writeArtifacts(f.out, res, name); err != nil {
		return fail(err)
	}
	for _, fr := range res.Files {
		if fr.Problem != "" {
			fmt.Fprintf(stderr, "gputriage: %s: %s\n", fr.Name, fr.Problem)
		}
	}
	if rep, ok := res.Artifact("perfetto_fix_report.json"); ok {
		if f.format == "json" {
			io.WriteString(stdout, rep)
		} else {
			var st struct {
				Crossings  int        `json:"crossings"`
				FlowsMoved int        `json:"flows_moved"`
				Lanes      []struct{} `json:"lanes"`
			}
			jsonUnmarshal([]byte(rep), &st)
			fmt.Fprintf(stdout, "%s: %d crossing GPU slices moved to %d synthetic lanes, %d flow ends moved with them → %s\n",
				path, st.Crossings, len(st.Lanes), st.FlowsMoved, outPath)
		}
	}
	return res.ExitCode
}

// drainEngine writes out what the module produced after every chunk.
type drainEngine struct {
	engine
	drain func() error
}

func (d *drainEngine) Feed(p []byte) error {
	if err := d.engine.Feed(p); err != nil {
		return err
	}
	return d.drain()
}
