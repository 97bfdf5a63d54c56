package analyzer

import (
	"bytes"
	"path"
	"strings"

	"github.com/gputriage/gputriage/analyzer/rocprof"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// The ROCm profilers' own outputs (analyzer/rocprof): rocprofv3 JSON is
// read whole at its end; CSV files and database row streams line by line.

const sqliteMagic = "SQLite format 3\x00"

// setRocKind sets c.kind when the file is a ROCm profiler output.
func (j *Job) setRocKind(c *current, b []byte) bool {
	if k := j.rocKind(c, b); k != "" {
		c.kind = k
		return true
	}
	return false
}

// rocKind decides whether a sniffed file is a ROCm profiler output; ""
// if not. b is the sniffed head without leading blanks.
func (j *Job) rocKind(c *current, b []byte) string {
	switch {
	case bytes.HasPrefix(c.sniff, []byte(sqliteMagic)):
		c.archive = "a SQLite database (rocpd, RPD or rocprof-compute): this host does not query databases; " +
			"the gputriage CLI, the page and the Worker do, and pass its rows on (docs/rocprof.md)"
		return "unknown"
	case rocprof.IsRows(c.sniff):
		c.rows = rocprof.NewRows(j.traceStore(), c.res.Name, j.opts.Limits.EventBytes)
		return "rocprof-rows"
	case rocprof.IsJSON(b):
		c.rocStore = j.traceStore()
		return "rocprof-json"
	case rocprof.CSVKind(b) != "":
		c.csv = j.csvRun(c.res.Name).File(j.opts.Limits.EventBytes)
		return "rocprof-csv"
	}
	return ""
}

// traceStore is the store the current trace file goes to.
func (j *Job) traceStore() *trace.Store {
	switch {
	case j.opts.Command == "diff" && j.opts.SplitA > 0:
		return j.sideStore(len(j.files) - 1)
	case j.perTrace():
		st := trace.NewStore()
		st.Budget = j.budget
		j.stores = append(j.stores, st)
		return st
	}
	return j.store
}

// csvRun returns the run a rocprofv3 CSV file belongs to: files in one
// folder with one <pid>_ prefix (rocprofv3's naming) are one process.
func (j *Job) csvRun(name string) *rocprof.CSVRun {
	key := csvRunKey(name)
	for _, r := range j.csvRuns {
		if r.key == key {
			return r.run
		}
	}
	r := rocprof.NewCSVRun(j.traceStore(), key)
	j.csvRuns = append(j.csvRuns, csvRun{key, r})
	return r
}

type csvRun struct {
	key string
	run *rocprof.CSVRun
}

// csvRunKey is a CSV file's folder and pid prefix, as "dir/908_*.csv".
func csvRunKey(name string) string {
	n := strings.ReplaceAll(name, "\\", "/")
	dir, base := path.Split(n)
	pid := ""
	if i := strings.IndexByte(base, '_'); i > 0 && strings.Trim(base[:i], "0123456789") == "" {
		pid = base[:i+1]
	}
	return dir + pid + "*.csv"
}

// rocRoute pushes bytes of a ROCm profiler file.
func (j *Job) rocRoute(c *current, p []byte) bool {
	switch c.kind {
	case "rocprof-json":
		if c.doc == nil && c.size > 0 {
			// The host's size hint (clamped) sizes the document once:
			// append's 1.25× growth re-copied a 37 MB file about twenty
			// times (half of breakdown's CPU on a rocprofv3 JSON).
			c.doc = make([]byte, 0, c.size)
		}
		c.doc = append(c.doc, p...)
	case "rocprof-csv":
		c.csv.Write(p)
	case "rocprof-rows":
		c.rows.Write(p)
	default:
		return false
	}
	return true
}

// rocEnd ends a ROCm profiler file.
func (j *Job) rocEnd(c *current) bool {
	res := c.res
	switch c.kind {
	case "rocprof-json":
		res.Kind = "trace"
		n := len(c.rocStore.Files)
		if err := rocprof.ReadJSON(c.rocStore, res.Name, c.doc); err != nil {
			res.Kind, res.Problem = "unknown", err.Error()
		}
		c.doc = nil
		for i := n; i < len(c.rocStore.Files); i++ {
			j.importDone(c, &c.rocStore.Files[i])
		}
	case "rocprof-csv":
		res.Kind = "trace"
		_, res.Problem = c.csv.Close()
		res.Partial = res.Problem != ""
	case "rocprof-rows":
		res.Kind = "trace"
		format, problem := c.rows.Close()
		if format == "" {
			res.Kind, res.Problem = "unknown", problem
			break
		}
		st := c.rows.Store()
		j.importDone(c, &st.Files[len(st.Files)-1])
	default:
		return false
	}
	return true
}

func (j *Job) importDone(c *current, f *trace.File) {
	if c.hostErr != "" {
		f.Complete = false
		if f.Problem == "" {
			// the host's words (SQLite's error, its work bound) are the
			// artifacts' too: the summary said "Partial input: ."
			f.Problem = c.hostErr
		}
	}
	if f.Partial() {
		c.res.Partial = true
		if c.res.Problem == "" {
			c.res.Problem = f.Problem
		}
		c.res.Problems = f.Problems()
	}
}

// flushCSV adds every CSV run's records once all its files are read.
func (j *Job) flushCSV() {
	for _, r := range j.csvRuns {
		r.run.Flush()
	}
	j.csvRuns = nil
}
