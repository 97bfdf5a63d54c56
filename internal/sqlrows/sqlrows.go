// Package sqlrows is the CLI's side of reading a SQLite database (rocpd,
// RPD, rocprof-compute): it runs the analyzer's row-stream queries
// (analyzer/rocprof, queries.json) with github.com/ncruces/go-sqlite3 and
// writes the row stream the analyzer reads. The page and the Worker do the
// same with SQLite's own wasm build (jsbridge/sqlite.js); both write each
// row as SQLite's json_array() text, so every host feeds the same bytes.
package sqlrows

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/analyzer/rocprof"
	"github.com/ncruces/go-sqlite3"
)

// Magic starts every SQLite database file.
const Magic = "SQLite format 3\x00"

// Write queries the database at path (opened read-only, never changed)
// and writes its row stream to w; it returns the rows written. SQLite's
// work is bounded (limits.SQLiteSteps): the views queried are the
// database's own, and a view can run for ever.
func Write(w io.Writer, path string) (int64, error) {
	db, err := sqlite3.OpenFlags("file:"+path+"?mode=ro&immutable=1", sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil {
		return 0, fmt.Errorf("not a readable SQLite database: %v", err)
	}
	defer db.Close()
	budget := &steps{Context: context.Background(), size: fileSize(path)}
	db.SetInterrupt(budget)
	have := map[string]bool{}
	if err := Each(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", func(s *sqlite3.Stmt) {
		have[s.ColumnText(0)] = true
	}); err != nil {
		return 0, fmt.Errorf("not a readable SQLite database: %v", budget.why(err))
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(rocprof.RowsMagic)
	for _, q := range rocprof.Queries() {
		ok := true
		for _, t := range q.Requires {
			ok = ok && have[t]
		}
		if !ok {
			continue
		}
		bw.WriteString("@ " + q.Name + "\n")
		if err := Each(db, q.SQL, func(s *sqlite3.Stmt) {
			bw.Write(s.ColumnRawText(0))
			if bw.WriteByte('\n') != nil {
				budget.stop = true // the reader is gone (a limit stopped it)
			}
			budget.rows++
		}); err != nil {
			// The rows read so far go on, as the page's and the Worker's do.
			bw.Flush()
			return budget.rows, fmt.Errorf("query %s: %v", q.Name, budget.why(err))
		}
	}
	return budget.rows, bw.Flush()
}

// steps is the database's work budget (limits.SQLiteSteps): SQLite asks
// its connection's interrupt context every 1,000 virtual-machine steps, and
// steps answers "interrupted" once the budget for the file's size and the
// rows written so far is spent, so a view of the database's own making (an
// endless recursive CTE, a cross join of large tables) ends.
type steps struct {
	context.Context
	size, rows, used int64
	stop, spent      bool
}

func (s *steps) Err() error {
	if s.stop || s.spent {
		return context.Canceled
	}
	if s.used++; s.used > limits.SQLiteSteps(s.size, s.rows) {
		s.spent = true
		return context.Canceled
	}
	return nil
}

// why is err, or the budget's note when the budget stopped the query.
func (s *steps) why(err error) error {
	if s.spent {
		return errors.New(limits.SQLiteStepsNote(s.size, s.rows))
	}
	return err
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Each runs sql and calls row for every result row.
func Each(db *sqlite3.Conn, sql string, row func(*sqlite3.Stmt)) error {
	s, _, err := db.Prepare(sql)
	if err != nil {
		return err
	}
	defer s.Close()
	for s.Step() {
		row(s)
	}
	return s.Err()
}

// Stream copies a database read from r (already decompressed) to a
// temporary file — SQLite reads a file, not a stream — and returns a
// reader of its row stream; closing it removes the file.
func Stream(r io.Reader) (io.ReadCloser, error) {
	f, err := os.CreateTemp("", "gputriage-*.db")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return nil, fmt.Errorf("copying the database to a temporary file: %v", err)
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := Write(pw, name)
		pw.CloseWithError(err)
	}()
	return &stream{pr, name}, nil
}

type stream struct {
	*io.PipeReader
	name string
}

func (s *stream) Close() error {
	s.PipeReader.Close()
	return os.Remove(s.name)
}
