package analyzer

import (
	encbin "encoding/binary"
	"errors"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// Parallel reading of one big trace (docs/abi.md, "blocks"): the host feeds
// the start of a file to the job as usual until BlockReady says the parse
// sits between two elements of traceEvents, cuts the rest of the
// decompressed bytes into blocks at element boundaries (trace.NextCut),
// has each block read by a BlockParser (another goroutine, another wasm
// instance), and merges the encoded blocks into the job in file order with
// MergeBlock. When MergeBlock returns ErrSplit the host runs the whole job
// again without blocks: the artifacts are the same bytes either way.

// ErrSplit is MergeBlock's refusal (trace.ErrSplit): the host's cut was
// not between two events, a block broke off, or a limit must be enforced
// event by event. Run the job again without blocks.
var ErrSplit = trace.ErrSplit

// BlockMinStart is how much of a file the job reads itself before it takes
// blocks: small files are never split, and a file that big is never a side
// document (sidecarMax).
const BlockMinStart = sidecarMax

// BlockReady reports whether the rest of the current file may come as
// blocks, and whether its document is a bare array of events (the
// BlockParsers must be told).
func (j *Job) BlockReady() (ok, bare bool) {
	c := j.cur
	if j.fix != nil || c == nil || c.kind != "json" || c.reader == nil || c.stopped || c.gz != nil || !c.headBig {
		return false, false
	}
	return c.reader.Splittable()
}

// MergeBlock appends one encoded block (BlockParser.Encode) to the current
// file: its bytes directly follow what was fed or merged before.
func (j *Job) MergeBlock(enc []byte) error {
	c := j.cur
	if ok, _ := j.BlockReady(); !ok {
		if c != nil && c.reader != nil && !c.stopped && c.headBig {
			return ErrSplit // the file's parse is not between two events
		}
		return errors.New("merge_block: the current file does not take blocks")
	}
	n, k := encbin.Uvarint(enc)
	if k <= 0 || n > uint64(len(enc)-k) {
		return errors.New("merge_block: not an encoded block")
	}
	tail, tb := enc[k:k+int(n)], enc[k+int(n):]
	c.res = &j.files[len(j.files)-1]
	before := c.reader.File().Bytes
	if err := c.reader.Merge(tb); err != nil {
		return err
	}
	added := c.reader.File().Bytes - before
	if j.opts.Limits.RatioExceeded(c.res.Bytes+added, c.read) {
		// The single reader stops at a chunk inside this block.
		return ErrSplit
	}
	c.res.Bytes += added
	c.digest.skip(added, tail)
	return nil
}

// BlockParser reads one block of a file for another job's MergeBlock.
type BlockParser struct {
	r    *trace.Reader
	tail digest
}

// NewBlockParser starts a block at byte base of a file's decompressed
// bytes, between two elements of traceEvents (of a bare array when bare);
// o are the job's options (their limits apply).
func NewBlockParser(o Options, base int64, bare bool) (*BlockParser, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	return &BlockParser{r: trace.NewBlockReader(o.Limits, base, bare)}, nil
}

// Reset starts the parser's next block (base and bare as for
// NewBlockParser), reusing its memory.
func (p *BlockParser) Reset(base int64, bare bool) {
	p.r.ResetBlock(base, bare)
	p.tail = digest{head: p.tail.head[:0], tail: p.tail.tail[:0]}
}

// Write pushes the block's next bytes.
func (p *BlockParser) Write(b []byte) (int, error) {
	p.tail.write(b)
	return p.r.Write(b)
}

// AppendEncoded appends the block's encoding to dst.
func (p *BlockParser) AppendEncoded(dst []byte) []byte {
	tail := p.tail.last()
	dst = encbin.AppendUvarint(dst, uint64(len(tail)))
	dst = append(dst, tail...)
	return p.r.AppendBlock(dst)
}
