package rocprof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/gputriage/gputriage/analyzer/trace"
)

// IsJSON reports whether the start of a document is rocprofv3's JSON
// output: an object whose first key is "rocprofiler-sdk-tool" (it has no
// traceEvents; records are in buffer order, not time order).
func IsJSON(head []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	return bytes.HasPrefix(b, []byte(`"rocprofiler-sdk-tool"`))
}

// The parts of rocprofiler-sdk's JSON the analyses use (generateJSON.cpp,
// cxx/serialization/save.hpp); everything else is skipped by the decoder.
type jsonDoc struct {
	Tool []jsonProcess `json:"rocprofiler-sdk-tool"`
}

type handle struct {
	Handle int64 `json:"handle"`
}

type corrID struct {
	Internal int64 `json:"internal"`
}

type jsonProcess struct {
	Metadata struct {
		Node struct {
			Hostname string `json:"hostname"`
		} `json:"node"`
		Pid      int64 `json:"pid"`
		InitTime ns    `json:"init_time"`
		FiniTime ns    `json:"fini_time"`
	} `json:"metadata"`
	Agents []struct {
		ID        handle `json:"id"`
		Type      int    `json:"type"` // 1 CPU, 2 GPU
		Node      int64  `json:"node_id"`
		Logical   int64  `json:"logical_node_id"`
		TypeIndex *int64 `json:"logical_node_type_id"`
		Name      string `json:"name"`
		Product   string `json:"product_name"`
		CUs       int64  `json:"cu_count"`
		Wave      int64  `json:"wave_front_size"`
		MemBanks  []struct {
			Size int64 `json:"size_in_bytes"`
		} `json:"mem_banks"`
	} `json:"agents"`
	Strings struct {
		BufferRecords []struct {
			Kind       string   `json:"kind"`
			Operations []string `json:"operations"`
		} `json:"buffer_records"`
	} `json:"strings"`
	KernelSymbols []struct {
		KernelID  int64  `json:"kernel_id"`
		Formatted string `json:"formatted_kernel_name"`
		Name      string `json:"kernel_name"`
	} `json:"kernel_symbols"`
	BufferRecords struct {
		KernelDispatch []struct {
			Thread int64  `json:"thread_id"`
			Corr   corrID `json:"correlation_id"`
			Start  ns     `json:"start_timestamp"`
			End    ns     `json:"end_timestamp"`
			Info   struct {
				Agent  handle `json:"agent_id"`
				Queue  handle `json:"queue_id"`
				Kernel int64  `json:"kernel_id"`
			} `json:"dispatch_info"`
		} `json:"kernel_dispatch"`
		MemoryCopy []struct {
			Kind      int    `json:"kind"`
			Operation int    `json:"operation"`
			Thread    int64  `json:"thread_id"`
			Corr      corrID `json:"correlation_id"`
			Start     ns     `json:"start_timestamp"`
			End       ns     `json:"end_timestamp"`
			Dst       handle `json:"dst_agent_id"`
			Src       handle `json:"src_agent_id"`
			Bytes     *int64 `json:"bytes"`
		} `json:"memory_copy"`
		HIPAPI []apiRecord `json:"hip_api"`
		HSAAPI []apiRecord `json:"hsa_api"`
	} `json:"buffer_records"`
}

// ns is a time in nanoseconds as rocprofv3 writes it. A value that is not an
// integer within int64 (1e400, 1.5, 2^64, a string) does not refuse the whole
// document: it reads as math.MaxInt64, outside 0 … 4·10¹⁸, so its record is
// skipped and counted as any out-of-range time is (docs/limits.md, Values).
type ns int64

func (v *ns) UnmarshalJSON(b []byte) error {
	if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*v = ns(n)
	} else if string(b) != "null" {
		*v = math.MaxInt64
	}
	return nil
}

type apiRecord struct {
	Kind      int    `json:"kind"`
	Operation int    `json:"operation"`
	Thread    int64  `json:"thread_id"`
	Corr      corrID `json:"correlation_id"`
	Start     ns     `json:"start_timestamp"`
	End       ns     `json:"end_timestamp"`
}

// ReadJSON reads a whole rocprofv3 JSON document into a new file of st.
// Several processes in one document go to one file each.
func ReadJSON(st *trace.Store, name string, doc []byte) error {
	var d jsonDoc
	if err := json.Unmarshal(doc, &d); err != nil {
		return fmt.Errorf("not a readable rocprofv3 JSON document: %v", err)
	}
	if len(d.Tool) == 0 {
		return fmt.Errorf("rocprofv3 JSON without a process (rocprofiler-sdk-tool is empty)")
	}
	for i := range d.Tool {
		n := name
		if len(d.Tool) > 1 {
			n = name + "#" + strconv.Itoa(i)
		}
		im := st.NewImport(n)
		im.File().Bytes = int64(len(doc))
		readProcess(im, &d.Tool[i])
	}
	return nil
}

func readProcess(im *trace.Importer, p *jsonProcess) {
	b := newBuilder(im, "rocprofv3 JSON")
	b.src.Hostname, b.src.Pid = p.Metadata.Node.Hostname, p.Metadata.Pid
	b.src.InitNS, b.src.FiniNS = int64(p.Metadata.InitTime), int64(p.Metadata.FiniTime)
	var as []trace.Agent
	explicit := true
	for _, a := range p.Agents {
		if a.Type != 2 {
			continue
		}
		ag := trace.Agent{Node: a.Node, Logical: a.Logical, Arch: a.Name, Product: a.Product, CUs: a.CUs, Wave: a.Wave}
		for _, m := range a.MemBanks {
			ag.MemB += m.Size
		}
		if a.TypeIndex != nil {
			ag.Device = *a.TypeIndex
		} else {
			explicit = false
		}
		as = append(as, ag)
	}
	if !explicit {
		gpuOrdinals(as)
	}
	for i, a := range p.Agents {
		if a.Type != 2 {
			continue
		}
		for _, g := range as {
			if g.Node == a.Node {
				b.gpu[p.Agents[i].ID.Handle] = g.Device
			}
		}
	}
	b.agents(as)

	names := map[int64]string{}
	for _, k := range p.KernelSymbols {
		n := k.Formatted
		if n == "" {
			n = k.Name
		}
		names[k.KernelID] = n
	}
	op := func(kind, operation int) string {
		if kind >= 0 && kind < len(p.Strings.BufferRecords) {
			ops := p.Strings.BufferRecords[kind].Operations
			if operation >= 0 && operation < len(ops) {
				return ops[operation]
			}
		}
		return "kind " + strconv.Itoa(kind) + " operation " + strconv.Itoa(operation)
	}
	br := &p.BufferRecords
	for _, a := range [][]apiRecord{br.HIPAPI, br.HSAAPI} {
		for _, r := range a {
			if !b.api(int64(r.Start), int64(r.End), r.Corr.Internal, op(r.Kind, r.Operation), p.Metadata.Pid, r.Thread) {
				return
			}
		}
	}
	for _, k := range br.KernelDispatch {
		n, ok := names[k.Info.Kernel]
		if !ok {
			n = "kernel " + strconv.FormatInt(k.Info.Kernel, 10)
		}
		if !b.kernel(int64(k.Start), int64(k.End), k.Corr.Internal, n, b.device(k.Info.Agent.Handle), k.Info.Queue.Handle) {
			return
		}
	}
	for _, c := range br.MemoryCopy {
		dev, ok := b.gpu[c.Dst.Handle]
		if !ok {
			dev = b.device(c.Src.Handle)
		}
		if c.Bytes != nil {
			b.src.CopiesWithSize++
			b.src.CopyBytes += *c.Bytes
		}
		if !b.copy(int64(c.Start), int64(c.End), c.Corr.Internal, op(c.Kind, c.Operation), dev, -1) {
			return
		}
	}
}
