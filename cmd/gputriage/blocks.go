package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/gputriage/gputriage/analyzer"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// Reading one big trace on every core (docs/abi.md, "blocks"): push feeds
// a file's start to the engine until it is ready for blocks, then cuts the
// rest at traceEvents element boundaries into blocks of blockSize, has a
// pool of block parsers (goroutines natively, wasm instances under wazero)
// read them, and merges their encodings in file order. A merge the engine
// refuses (analyzer.ErrSplit) makes the caller run the whole job again
// without blocks, so the artifacts are always a single reader's bytes.

// blockSize is about how many decompressed bytes one block holds.
const blockSize = 8 << 20

// blockRestarts counts the jobs run again without blocks, blocksMerged the
// blocks merged (for tests).
var blockRestarts, blocksMerged int

// errRestart asks run to start the job again without blocks.
var errRestart = errors.New("the blocks did not merge: the job is read again without them")

// splitter is an engine that takes the rest of a big file as blocks.
type splitter interface {
	BlockReady() (ok, bare bool, err error)
	MergeBlock(enc []byte) error
	// newBlockParser returns a parser for one goroutine.
	newBlockParser() (blockParser, error)
	// blockParsers is how many parsers a big file gets (< 2: no blocks).
	blockParsers() int
}

// blockParser reads blocks for a splitter, one at a time.
type blockParser interface {
	Parse(base int64, bare bool, data []byte) ([]byte, error)
	Close() error
}

// blockPool reads blocks on n goroutines and hands their encodings back in
// the order they were sent.
type blockPool struct {
	jobs    chan blockJob
	results chan blockResult
	next    int // sequence number of the next block to merge
	sent    int
	done    map[int]blockResult
	bare    bool
	parsers []blockParser
}

type blockJob struct {
	seq  int
	base int64
	data []byte
}

type blockResult struct {
	seq int
	enc []byte
	err error
}

func newBlockPool(s splitter, n int, bare bool) (*blockPool, error) {
	p := &blockPool{jobs: make(chan blockJob), results: make(chan blockResult, n), done: map[int]blockResult{}, bare: bare}
	for range n {
		bp, err := s.newBlockParser()
		if err != nil {
			p.close()
			return nil, err
		}
		p.parsers = append(p.parsers, bp)
		go func() {
			for j := range p.jobs {
				enc, err := bp.Parse(j.base, bare, j.data)
				p.results <- blockResult{j.seq, enc, err}
			}
		}()
	}
	return p, nil
}

// send hands a block to a free parser, merging finished blocks (in order)
// while every parser is busy.
func (p *blockPool) send(s splitter, base int64, data []byte) error {
	j := blockJob{p.sent, base, data}
	p.sent++
	for {
		select {
		case p.jobs <- j:
			return nil
		case r := <-p.results:
			if err := p.take(s, r); err != nil {
				return err
			}
		}
	}
}

// take records a finished block and merges every block now in order.
func (p *blockPool) take(s splitter, r blockResult) error {
	p.done[r.seq] = r
	for {
		r, ok := p.done[p.next]
		if !ok {
			return nil
		}
		delete(p.done, p.next)
		p.next++
		if r.err != nil {
			return r.err
		}
		if err := s.MergeBlock(r.enc); err != nil {
			if errors.Is(err, analyzer.ErrSplit) {
				return errRestart
			}
			return err
		}
		blocksMerged++
	}
}

// wait merges every block sent.
func (p *blockPool) wait(s splitter) error {
	for p.next < p.sent {
		if err := p.take(s, <-p.results); err != nil {
			return err
		}
	}
	return nil
}

// close stops the parsers; blocks still being read are dropped.
func (p *blockPool) close() {
	if p.jobs == nil {
		return
	}
	close(p.jobs)
	p.jobs = nil
	// Parsers still reading finish first: a module instance is closed
	// only once no call runs in it.
	go func(results chan blockResult, pending int, parsers []blockParser) {
		for range pending {
			<-results
		}
		for _, bp := range parsers {
			bp.Close()
		}
	}(p.results, p.sent-p.next-len(p.done), p.parsers)
}

// newBlockFeeder returns push's feeder for a file, or nil when the file is
// read by the engine alone: the engine takes no blocks, or the input could
// not be read a second time (stdin) should the blocks not merge.
func newBlockFeeder(eng engine, r io.Reader, gz bool) *blockFeeder {
	s, ok := eng.(splitter)
	if !ok || s.blockParsers() < 2 {
		return nil
	}
	// Natively the parse runs about as fast as gunzip, which has a core of
	// its own: on 2 cores blocks of a gzipped trace measured slower
	// (tp_rank0 0.29 -> 0.35 s), of plain JSON faster (512 MB generated:
	// 1.31 -> 1.06 s). Under wazero they pay either way (tp_rank0 2x).
	if n, ok := eng.(*native); ok && n.autoParsers && gz && runtime.GOMAXPROCS(0) < 3 {
		return nil
	}
	switch r := r.(type) {
	case *os.File:
		if st, err := r.Stat(); err != nil || !st.Mode().IsRegular() {
			return nil
		}
	case *bytes.Reader:
	default:
		return nil
	}
	return &blockFeeder{s: s, eng: eng, n: s.blockParsers()}
}

// blockFeeder is push's state for one file read in blocks.
type blockFeeder struct {
	s       splitter
	eng     engine
	n       int   // parsers
	fed     int64 // bytes fed or sent
	pool    *blockPool
	pending []byte // bytes of the next block
	base    int64  // offset of pending
}

// feed takes the file's next chunk: to the engine until it is ready for
// blocks, then into blocks.
func (b *blockFeeder) feed(c []byte) error {
	if b.pool == nil {
		if b.fed < analyzer.BlockMinStart {
			b.fed += int64(len(c))
			return b.eng.Feed(c)
		}
		// Look behind the cut within the chunk (trace.NextCut's
		// pretty-print rule): start the search a little in.
		cut := trace.NextCut(c, min(len(c), 4096))
		if cut < 0 {
			b.fed += int64(len(c))
			return b.eng.Feed(c)
		}
		if err := b.eng.Feed(c[:cut]); err != nil {
			return err
		}
		b.fed += int64(cut)
		ok, bare, err := b.s.BlockReady()
		if err != nil {
			return err
		}
		if !ok {
			b.fed += int64(len(c) - cut)
			return b.eng.Feed(c[cut:])
		}
		if b.pool, err = newBlockPool(b.s, b.n, bare); err != nil {
			return err
		}
		b.base = b.fed
		c = c[cut:]
	}
	b.pending = append(b.pending, c...)
	b.fed += int64(len(c))
	for len(b.pending) >= blockSize {
		cut := trace.NextCut(b.pending, blockSize-4096)
		if cut < 0 {
			if len(b.pending) > 4*blockSize { // no element boundary in sight: one big block
				cut = len(b.pending)
			} else {
				return nil
			}
		}
		rest := append(make([]byte, 0, blockSize+chunk), b.pending[cut:]...)
		if err := b.pool.send(b.s, b.base, b.pending[:cut]); err != nil {
			return err
		}
		b.base += int64(cut)
		b.pending = rest
	}
	return nil
}

// end sends the last block and merges every block.
func (b *blockFeeder) end() error {
	if b.pool == nil {
		return nil
	}
	defer b.pool.close()
	if len(b.pending) > 0 {
		if err := b.pool.send(b.s, b.base, b.pending); err != nil {
			return err
		}
		b.pending = nil
	}
	return b.pool.wait(b.s)
}

func (b *blockFeeder) close() {
	if b.pool != nil {
		b.pool.close()
	}
}

// Natively a block parser is analyzer.BlockParser on its own goroutine.

func (n *native) BlockReady() (bool, bool, error) {
	ok, bare := n.job.BlockReady()
	return ok, bare, nil
}

func (n *native) MergeBlock(enc []byte) error { return n.job.MergeBlock(enc) }

func (n *native) blockParsers() int { return n.parsers }

func (n *native) newBlockParser() (blockParser, error) { return nativeParser{n.opts}, nil }

type nativeParser struct{ opts analyzer.Options }

func (p nativeParser) Parse(base int64, bare bool, data []byte) ([]byte, error) {
	bp, err := analyzer.NewBlockParser(p.opts, base, bare)
	if err != nil {
		return nil, err
	}
	bp.Write(data)
	return bp.AppendEncoded(nil), nil
}

func (nativeParser) Close() error { return nil }

// Under wazero a block parser is another instance of the module.

func (e *wasmEngine) BlockReady() (bool, bool, error) {
	rc, err := e.call("block_ready")
	return rc != 0, rc == 2, err
}

func (e *wasmEngine) MergeBlock(enc []byte) error {
	return e.pushBytes("block_merge", enc, 3, analyzer.ErrSplit)
}

func (e *wasmEngine) blockParsers() int { return e.parsers }

func (e *wasmEngine) newBlockParser() (blockParser, error) {
	rt, compiled, err := wazeroModule(e.ctx, e.wasm)
	if err != nil {
		return nil, err
	}
	p, err := instantiate(e.ctx, rt, compiled)
	if err != nil {
		return nil, err
	}
	p.wasm, p.opts = e.wasm, e.opts
	return wasmParser{p}, nil
}

type wasmParser struct{ e *wasmEngine }

func (p wasmParser) Parse(base int64, bare bool, data []byte) ([]byte, error) {
	e := p.e
	ptr, err := e.put(e.opts)
	if err != nil {
		return nil, err
	}
	var b uint64
	if bare {
		b = 1
	}
	if rc, err := e.call("block_begin", ptr, uint64(len(e.opts)), uint64(uint32(base)), uint64(uint32(base>>32)), b); err != nil || rc != 0 {
		return nil, fmt.Errorf("gputriage.wasm block_begin: %v (rc %d)", err, rc)
	}
	for len(data) > 0 {
		n := min(len(data), chunk)
		if err := e.Feed(data[:n]); err != nil {
			return nil, err
		}
		data = data[n:]
	}
	if _, err := e.call("block_end"); err != nil {
		return nil, err
	}
	enc, err := e.resultBytes()
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), enc...), nil
}

func (p wasmParser) Close() error { return p.e.Close() }
