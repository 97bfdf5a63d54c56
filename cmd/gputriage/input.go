package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/limits"
	"github.com/gputriage/gputriage/internal/sqlrows"
)

// chunk is how much the host pushes per feed call.
const chunk = 1 << 20

// expand turns the command line's inputs into files: a directory contributes
// the evidence files in it (the SGLang profiler's per-rank, per-stage files,
// every TP rank; merged-* files are dropped when per-rank files exist);
// "-" is standard input. Files under a capture_traces/ folder (SGLang's
// CUDA/HIP-graph capture traces) are returned apart: they are mapping
// traces for triage, never ranks.
func expand(args []string) ([]string, error) {
	files, _, err := expandRoles(args)
	return files, err
}

func expandRoles(args []string) (files, captures []string, err error) {
	for _, a := range args {
		if a == "-" {
			files = append(files, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", a, unwrapPathErr(err))
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		fs, cs, err := dirFiles(a)
		if err != nil {
			return nil, nil, err
		}
		if len(fs) == 0 && len(cs) == 0 {
			return nil, nil, fmt.Errorf("%s: no trace or log files in this directory", a)
		}
		files = append(files, fs...)
		captures = append(captures, cs...)
	}
	return files, captures, nil
}

// sidecars are the JSON files profilers write beside traces that say
// nothing gputriage reads (server_args.json is read: the run's identity).
var sidecars = map[string]bool{"execution_details.json": true, "package.json": true}

func dirFiles(dir string) (files, captures []string, err error) {
	var all []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		n := strings.ToLower(d.Name())
		if sidecars[n] {
			return nil
		}
		for _, ext := range []string{".json", ".json.gz", ".gz", ".log", ".txt", ".out", ".err", ".csv", ".db", ".rpd"} {
			if strings.HasSuffix(n, ext) {
				if err := regular(p); err != nil {
					return fmt.Errorf("%s: %v", p, err)
				}
				all = append(all, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(all)
	var perRank, merged []string
	for _, p := range all {
		rel, _ := filepath.Rel(dir, p)
		switch {
		case slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "capture_traces"):
			captures = append(captures, p)
		case strings.HasPrefix(strings.ToLower(filepath.Base(p)), "merged-"):
			merged = append(merged, p)
		default:
			perRank = append(perRank, p)
		}
	}
	if len(perRank) == 0 {
		return merged, captures, nil
	}
	return perRank, captures, nil
}

// regular refuses what a folder may hold besides files: a named pipe or a
// socket (reading waits for a writer for ever), a device, or a symlink to
// one (zero.json → /dev/zero never ends). Only regular files are read
// from folders; a file named on the command line may also be a pipe
// (<(zcat trace.gz)), not a device nor a socket (argument).
func regular(p string) error {
	st, err := os.Stat(p) // follows symlinks; never opens
	if err != nil {
		return unwrapPathErr(err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s): refused", fileKind(st.Mode()))
	}
	return nil
}

// argument is regular for a file named on the command line: pipes pass.
func argument(p string) error {
	st, err := os.Stat(p)
	if err != nil || st.Mode()&os.ModeNamedPipe != 0 {
		return nil // os.Open says what is wrong
	}
	return regular(p)
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.Type().String()
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// push streams one file into the engine, gunzipping on the host side when
// the content starts with the gzip magic. A damaged gzip stream keeps what
// was decompressed and is reported to the module as a file error.
func push(eng engine, name string, r io.Reader, progress func(n int64)) error {
	if err := eng.FileBegin(name); err != nil {
		return err
	}
	var hint int64
	switch f := r.(type) {
	case *os.File:
		hint = sizeHint(f)
	case interface{ SizeHint() int64 }:
		hint = f.SizeHint()
	}
	if hint > 0 {
		if err := eng.FileSize(hint); err != nil {
			return err
		}
	}
	// A seekable input can be read again from here: gunzip.go's fast
	// inflater falls back to compress/gzip on a damaged stream.
	var reopen func() (io.Reader, error)
	if rs, ok := r.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			reopen = func() (io.Reader, error) {
				_, err := rs.Seek(start, io.SeekStart)
				return rs, err
			}
		}
	}
	br := bufio.NewReaderSize(r, chunk)
	var src io.Reader = br
	counted := &countingReader{r: br}
	var compressed interface{ n() int64 } = counted
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := newGunzip(counted, reopen)
		if err != nil {
			if err := eng.FileError(fmt.Sprintf("gzip header unreadable: %v", err)); err != nil {
				return err
			}
			return eng.FileEnd()
		}
		src, compressed = zr, zr
	} else {
		src = counted
	}
	gz := src != io.Reader(counted)
	// A SQLite database (rocpd, RPD, rocprof-compute) is queried here and
	// its rows are pushed instead of its bytes (internal/sqlrows).
	db := false
	if peek := bufio.NewReader(src); true {
		src = peek
		if magic, _ := peek.Peek(len(sqlrows.Magic)); string(magic) == sqlrows.Magic {
			rows, err := sqlrows.Stream(peek)
			if err != nil {
				if err := eng.FileError(err.Error()); err != nil {
					return err
				}
				return eng.FileEnd()
			}
			defer rows.Close()
			src, db = rows, true
		}
	}
	var total int64
	blocks, done := readAhead(src)
	defer close(done)
	feed := eng.Feed
	var bf *blockFeeder
	if !db {
		bf = newBlockFeeder(eng, r, gz)
	}
	if bf != nil {
		defer bf.close()
		feed = bf.feed
	}
	for c := range blocks {
		if len(c.data) > 0 {
			total += int64(len(c.data))
			if gz {
				if err := eng.FileRead(compressed.n()); err != nil {
					return err
				}
			}
			if ferr := feed(c.data); ferr != nil {
				if errors.Is(ferr, analyzer.ErrStop) {
					c.release()
					break // a limit was reached: the module has what it will read
				}
				return ferr
			}
			if progress != nil {
				progress(compressed.n())
			}
		}
		c.release()
		if c.err == io.EOF {
			break
		}
		if c.err != nil {
			msg := fmt.Sprintf("read error after %d bytes: %v", total, c.err)
			switch {
			case db:
				// The database was read whole; SQLite's own error
				// (sqlrows), worded as the page and the Worker word it.
				msg = c.err.Error()
			case gz:
				at := compressed.n()
				if g, ok := compressed.(*gunzipReader); ok {
					at = g.damagedAt()
				}
				msg = fmt.Sprintf("gzip stream damaged or truncated after %d decompressed bytes (%d compressed): %v", total, at, c.err)
			}
			if bf != nil {
				if err := bf.end(); err != nil {
					return err
				}
			}
			if err := eng.FileError(msg); err != nil {
				return err
			}
			return eng.FileEnd()
		}
	}
	if bf != nil {
		if err := bf.end(); err != nil {
			return err
		}
	}
	return eng.FileEnd()
}

// countingReader counts the bytes read through it; the count is read from
// the pushing goroutine while readAhead's goroutine reads.
type countingReader struct {
	r io.Reader
	c atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.c.Add(int64(n))
	return n, err
}

func (c *countingReader) n() int64 { return c.c.Load() }

// fill reads until buf is full or the reader fails; io.EOF means a clean end
// (unlike io.ReadFull, a truncated gzip stream's ErrUnexpectedEOF stays an
// error).
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

type block struct {
	data    []byte
	err     error
	release func()
}

// readAhead reads (and so decompresses) on its own goroutine, a few chunks
// ahead of the analyzer: gunzip and parsing then use both cores. Closing
// done stops the reader early.
func readAhead(r io.Reader) (<-chan block, chan<- struct{}) {
	const depth = 3
	free := make(chan []byte, depth+1)
	for range depth {
		free <- make([]byte, chunk)
	}
	out := make(chan block, depth)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-done:
				return
			}
			n, err := fill(r, buf)
			select {
			case out <- block{data: buf[:n], err: err, release: func() { free <- buf }}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, done
}

// sizeHint estimates a file's decompressed size: its size, or for gzip the
// ISIZE trailer (the size mod 2³²), lifted past 4 GiB wraps assuming a
// typical trace compression ratio. Only a memory-planning hint.
func sizeHint(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < 18 {
		return 0
	}
	var head [2]byte
	var tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return 0
	}
	if head[0] != 0x1f || head[1] != 0x8b {
		return st.Size()
	}
	if _, err := f.ReadAt(tail[:], st.Size()-4); err != nil {
		return 0
	}
	isize := int64(binary.LittleEndian.Uint32(tail[:]))
	const ratio, wrap = 15, 1 << 32
	if k := (st.Size()*ratio - isize + wrap/2) / wrap; k > 0 {
		isize += k * wrap
	}
	// A forged trailer must not plan gigabytes: never more than deflate
	// can expand the file to (the module also caps the hint).
	return min(isize, st.Size()*limits.DeflateMaxRatio)
}

// summaryName is the file gputriage extract writes.
const summaryName = "rank_summary.json"

// summaryInputs are gputriage ranks' inputs: files as given, and under each
// directory every rank_summary.json (extract's other artifacts beside it
// are not summaries).
func summaryInputs(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, unwrapPathErr(err))
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == summaryName {
				// as dirFiles: a pipe or device named like a summary is refused
				if err := regular(p); err != nil {
					return fmt.Errorf("%s: %v", p, err)
				}
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no %s under this directory (write them with gputriage extract RANK_TRACE -o DIR)", a, summaryName)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}
