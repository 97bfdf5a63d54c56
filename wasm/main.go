//go:build wasip1

// Command wasm is gputriage.wasm: a WASI reactor exposing the push ABI of
// docs/abi.md. Hosts write each file's decompressed bytes into module memory
// chunk by chunk; the analyzer never sees a whole document.
package main

import (
	"runtime/debug"
	"runtime/metrics"
	"unsafe"

	"github.com/gputriage/gputriage/analyzer"
)

func main() {}

// GC pacing. A wasm module's linear memory never shrinks, so its high-water
// mark is what a tab or the CLI pays: collect at 25 % growth instead of
// 100 % (the store's records are pointer-free, so the extra collections are
// cheap). But with a small heap 25 % meant a collection every megabyte or so
// (the heap goal's floor is 4 MiB × GOGC/100), each one scanning the
// module's 3 MB of data single-threaded: seven of them were a tenth of a
// small trace's `--engine wasm` run. So the heap may grow to heapFloor
// before a collection, and 25 % above that (gcPercentFor): the percent is
// set from the live heap of the last collection, at begin and every feed.
var (
	gcPercent int
	gcSample  = []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/globals:bytes"},
		{Name: "/gc/scan/stack:bytes"},
	}
)

func init() { pace() }

// pace sets the GC percent from the live heap and the GC roots.
func pace() {
	metrics.Read(gcSample)
	var v [3]uint64
	for i, s := range gcSample {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	if p := gcPercentFor(v[0], v[1]+v[2]); p != gcPercent {
		gcPercent = p
		debug.SetGCPercent(p)
	}
}

var (
	job   *analyzer.Job
	block *analyzer.BlockParser // between block_begin and block_end
	// the last block's parser and options, reused by the next block
	lastBlock *analyzer.BlockParser
	lastOpts  []byte
	buf       []byte
	result    []byte
	output    []byte
)

func setError(msg string) int32 {
	r := analyzer.Result{ExitCode: analyzer.ExitUsage, Error: msg, Files: []analyzer.FileResult{}, Artifacts: []analyzer.Artifact{}}
	result = r.JSON()
	return analyzer.ExitUsage
}

func bytesAt(ptr, n uint32) []byte {
	if n == 0 {
		return nil
	}
	// ptr is an address in this module's own linear memory, handed out by alloc.
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), uintptr(ptr))), n)
}

//go:wasmexport alloc
func alloc(n uint32) uint32 {
	if uint32(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if n == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&buf[0])))
}

//go:wasmexport begin
func begin(ptr, n uint32) int32 {
	job, block, lastBlock = nil, nil, nil
	result = nil
	pace()
	opts, err := analyzer.ParseOptions(bytesAt(ptr, n))
	if err != nil {
		return setError(err.Error())
	}
	if job, err = analyzer.New(opts); err != nil {
		return setError(err.Error())
	}
	return 0
}

//go:wasmexport file_begin
func fileBegin(ptr, n uint32) int32 {
	if job == nil {
		return setError("file_begin before begin")
	}
	job.BeginFile(string(bytesAt(ptr, n)))
	return 0
}

//go:wasmexport feed
func feed(ptr, n uint32) int32 {
	if block != nil {
		pace()
		block.Write(bytesAt(ptr, n))
		return 0
	}
	if job == nil {
		return setError("feed before begin")
	}
	pace()
	if _, err := job.Write(bytesAt(ptr, n)); err != nil {
		if err == analyzer.ErrStop {
			return 1 // the file takes no more bytes: go on with file_end
		}
		return setError(err.Error())
	}
	return 0
}

// file_gzip says the current file's next bytes are its whole gzip stream,
// of which lo + hi<<32 decompressed bytes were already fed: the module
// gunzips them itself (multi-member, every byte up to damage), as the CLI.
//
//go:wasmexport file_gzip
func fileGzip(lo, hi uint32) int32 {
	if job == nil {
		return setError("file_gzip before begin")
	}
	job.FileGzip(int64(hi)<<32 | int64(lo))
	return 0
}

// file_read passes how many compressed bytes of the current file the host
// has read so far (lo + hi<<32): the decompression-ratio guard's input.
//
//go:wasmexport file_read
func fileRead(lo, hi uint32) int32 {
	if job != nil {
		job.FileRead(int64(hi)<<32 | int64(lo))
	}
	return 0
}

// file_size passes the expected decompressed size of the current file
// (lo + hi<<32 bytes): a hint for memory planning, never required.
//
//go:wasmexport file_size
func fileSize(lo, hi uint32) int32 {
	if job != nil {
		job.FileSize(int64(hi)<<32 | int64(lo))
	}
	return 0
}

// expect_bytes passes the expected decompressed size of all the files
// the host will push (lo + hi<<32 bytes): memory planning only.
//
//go:wasmexport expect_bytes
func expectBytes(lo, hi uint32) int32 {
	if job != nil {
		job.ExpectBytes(int64(hi)<<32 | int64(lo))
	}
	return 0
}

//go:wasmexport file_error
func fileError(ptr, n uint32) int32 {
	if job == nil {
		return setError("file_error before begin")
	}
	job.FileError(string(bytesAt(ptr, n)))
	return 0
}

//go:wasmexport file_end
func fileEnd() int32 {
	if job == nil {
		return setError("file_end before begin")
	}
	job.EndFile()
	return 0
}

//go:wasmexport finish
func finish() int32 {
	if job == nil {
		return setError("finish before begin")
	}
	// The job stays until the next begin: a streaming command's last output
	// (written when finish closes it) is still taken after this call.
	r := job.Finish()
	result = r.JSON()
	return int32(r.ExitCode)
}

//go:wasmexport result_ptr
func resultPtr() uint32 {
	if len(result) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&result[0])))
}

//go:wasmexport result_len
func resultLen() uint32 { return uint32(len(result)) }

// take_output moves the bytes a streaming command (perfetto-fix) has written
// since the last call into the output buffer and returns their length; read
// them at output_ptr before the next call.
//
//go:wasmexport take_output
func takeOutput() uint32 {
	if job == nil {
		output = nil
		return 0
	}
	output = job.TakeOutput()
	return uint32(len(output))
}

// spans puts the per-kernel interval encoding of the last finish
// (report.Spans) in the output buffer and returns its length (0: none);
// read it at output_ptr. The page's timeline draws single kernels from it.
//
//go:wasmexport spans
func spans() uint32 {
	output = nil
	if job == nil {
		return 0
	}
	output = job.Spans()
	return uint32(len(output))
}

//go:wasmexport output_ptr
func outputPtr() uint32 {
	if len(output) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&output[0])))
}

// Blocks (docs/abi.md): one big trace read by several instances at once.

// block_ready reports whether the rest of the current file may come as
// blocks: 1 = yes, 2 = yes and the document is a bare array, 0 = not now.
//
//go:wasmexport block_ready
func blockReady() int32 {
	if job == nil {
		return 0
	}
	switch ok, bare := job.BlockReady(); {
	case ok && bare:
		return 2
	case ok:
		return 1
	}
	return 0
}

// block_begin starts reading one block in this instance: opts are the
// job's options (JSON), the block starts at byte lo + hi<<32 of the file's
// decompressed bytes, between two elements of traceEvents (of a bare array
// when bare is 1). feed pushes its bytes; block_end encodes it.
//
//go:wasmexport block_begin
func blockBegin(ptr, n, lo, hi, bare uint32) int32 {
	job, block = nil, nil
	pace()
	base := int64(hi)<<32 | int64(lo)
	// The same options as the last block: reuse its parser's memory.
	if lastBlock != nil && string(bytesAt(ptr, n)) == string(lastOpts) {
		block = lastBlock
		block.Reset(base, bare == 1)
		return 0
	}
	opts, err := analyzer.ParseOptions(bytesAt(ptr, n))
	if err != nil {
		return setError(err.Error())
	}
	if block, err = analyzer.NewBlockParser(opts, base, bare == 1); err != nil {
		return setError(err.Error())
	}
	lastBlock, lastOpts = block, append(lastOpts[:0], bytesAt(ptr, n)...)
	return 0
}

// block_end ends the block: result_ptr/result_len hold its encoding.
//
//go:wasmexport block_end
func blockEnd() int32 {
	if block == nil {
		return setError("block_end before block_begin")
	}
	result = block.AppendEncoded(result[:0])
	block = nil
	return 0
}

// block_merge merges an encoded block into the current file: 0 merged,
// 3 the host must run the job again without blocks (analyzer.ErrSplit),
// 2 a usage error or a damaged block.
//
//go:wasmexport block_merge
func blockMerge(ptr, n uint32) int32 {
	if job == nil {
		return setError("block_merge before begin")
	}
	pace()
	if err := job.MergeBlock(bytesAt(ptr, n)); err != nil {
		if err == analyzer.ErrSplit {
			return 3
		}
		return setError(err.Error())
	}
	return 0
}
