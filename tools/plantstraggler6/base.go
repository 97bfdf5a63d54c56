package plantstraggler6

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A base is a multi-rank job: real rank files, or one real rank cloned to n ranks.
type Base struct {
	Name   string
	Src    []string // under ../shared/testdata
	Clones int      // >0: src[0] copied to this many ranks
	Jitter float64  // µs: seeded natural lateness per rank and collective
	// JitterMaxQueue (µs, 0 = none): no host jitter at collectives queued longer.
	JitterMaxQueue float64
	AddArgs        bool // give each collective PyTorch's args from its nccl:* annotation
	Groups         func(kind string, rank int) (pg string, ranks []int)
	// Prepare edits each rank once loaded (args a trace of another PyTorch would carry).
	Prepare func(rank int, d *Doc)
	Note    string
}

var customAR = regexp.MustCompile(`(?i)multimem_all_reduce|cross_device_reduce|one_shot_all_reduce|two_shot_all_reduce`)
var ncclName = regexp.MustCompile(`(?i)nccl|rccl|msccl`)

func isCollKernel(e map[string]any) bool {
	if c := str(e["cat"]); c != "kernel" && c != "Kernel" {
		return false
	}
	n := str(e["name"])
	return ncclName.MatchString(n) || customAR.MatchString(n)
}

// kindOf follows the issue: `Collective name` when the trace has it, else the kernel name.
func kindOf(e map[string]any) string {
	if cn := str(args(e)["Collective name"]); cn != "" {
		return normKind(cn)
	}
	n := strings.ToLower(str(e["name"]))
	switch {
	case customAR.MatchString(n):
		return "custom_allreduce"
	case strings.Contains(n, "allreduce"):
		return "allreduce"
	case strings.Contains(n, "allgather"):
		return "allgather"
	case strings.Contains(n, "reducescatter"):
		return "reducescatter"
	case strings.Contains(n, "alltoall"):
		return "alltoall"
	case strings.Contains(n, "broadcast"):
		return "broadcast"
	case strings.Contains(n, "sendrecv"):
		return "sendrecv"
	case strings.Contains(n, "reduce"):
		return "reduce"
	}
	return "collective"
}

func normKind(cn string) string {
	k := strings.ToLower(strings.TrimPrefix(cn, "_"))
	k = strings.TrimSuffix(k, "_base")
	k = strings.ReplaceAll(k, "_", "")
	switch k {
	case "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "barrier":
		return k
	case "alltoallbase", "alltoallv":
		return "alltoall"
	case "send", "recv", "sendrecv":
		return "sendrecv"
	}
	return k
}

var dtypeSize = map[string]float64{"Float": 4, "Int": 4, "Long": 8, "BFloat16": 2, "Half": 2, "Double": 8, "Byte": 1, "Char": 1, "Bool": 1}

func torchDtype(inputType string) string {
	switch strings.TrimPrefix(inputType, "c10::") {
	case "float":
		return "Float"
	case "int":
		return "Int"
	case "long int", "long":
		return "Long"
	case "BFloat16":
		return "BFloat16"
	case "Half":
		return "Half"
	case "double":
		return "Double"
	}
	return ""
}

func loadBase(b Base, shared string) ([]*doc, []string, error) {
	var docs []*doc
	var names []string
	if b.Clones > 0 {
		d, err := readDoc(filepath.Join(shared, b.Src[0]))
		if err != nil {
			return nil, nil, err
		}
		if b.AddArgs {
			addCollArgs(d)
		}
		stem := strings.TrimSuffix(filepath.Base(b.Src[0]), ".json.gz")
		for r := 0; r < b.Clones; r++ {
			c := d
			if r < b.Clones-1 {
				c = d.clone()
			}
			relabel(c, r, b.Clones)
			docs = append(docs, c)
			names = append(names, fmt.Sprintf("rank%d_%s.json.gz", r, stem))
		}
	} else {
		for _, s := range b.Src {
			d, err := readDoc(filepath.Join(shared, s))
			if err != nil {
				return nil, nil, err
			}
			docs = append(docs, d)
			names = append(names, filepath.Base(s))
		}
	}
	if b.Groups != nil {
		for r, d := range docs {
			for _, e := range d.events {
				if !isCollKernel(e) {
					continue
				}
				pg, ranks := b.Groups(kindOf(e), r)
				a := args(e)
				a["Process Group Name"] = pg
				a["Process Group Description"] = "mesh:" + pg
				a["Group size"] = len(ranks)
				a["Process Group Ranks"] = fmt.Sprint(ranks)
			}
		}
	}
	if b.Prepare != nil {
		for r, d := range docs {
			b.Prepare(r, d)
		}
	}
	return docs, names, nil
}

// relabel makes a clone rank r of an n-rank job.
func relabel(d *doc, r, n int) {
	di, _ := d.top["distributedInfo"].(map[string]any)
	if di == nil {
		di = map[string]any{"backend": "nccl"}
		d.top["distributedInfo"] = di
	}
	di["rank"] = r
	di["world_size"] = n
	if pc, ok := di["pg_config"].([]any); ok {
		for _, p := range pc {
			if m, ok := p.(map[string]any); ok && numOr(m["pg_size"], 0) == float64(n) {
				ranks := make([]any, n)
				for i := range ranks {
					ranks[i] = i
				}
				m["ranks"] = ranks
			}
		}
	}
}

// addCollArgs writes the args PyTorch records for a collective (Collective name,
// In/Out msg nelems, dtype, Group size, Process Group Name) on the kernel and its
// record_param_comms, from the `nccl:<op>` annotation around the launch.
func addCollArgs(d *doc) {
	launch := map[float64]map[string]any{}
	var anns, rpcs []map[string]any
	for _, e := range d.events {
		switch str(e["cat"]) {
		case "cuda_runtime", "cuda_driver":
			if c, ok := num(args(e)["correlation"]); ok {
				launch[c] = e
			}
		case "user_annotation":
			if strings.HasPrefix(str(e["name"]), "nccl:") {
				anns = append(anns, e)
			}
		case "cpu_op":
			if str(e["name"]) == "record_param_comms" {
				rpcs = append(rpcs, e)
			}
		}
	}
	world := 1
	if di, ok := d.top["distributedInfo"].(map[string]any); ok {
		world = int(numOr(di["world_size"], 1))
	}
	enclosing := func(list []map[string]any, l map[string]any) map[string]any {
		var best map[string]any
		for _, a := range list {
			if numOr(a["tid"], -1) != numOr(l["tid"], -2) {
				continue
			}
			if ts(a) <= ts(l) && ts(l)+dur(l) <= ts(a)+dur(a) && (best == nil || ts(a) > ts(best)) {
				best = a
			}
		}
		return best
	}
	for _, e := range d.events {
		if !isCollKernel(e) {
			continue
		}
		c, _ := num(args(e)["correlation"])
		l := launch[c]
		if l == nil {
			continue
		}
		ann := enclosing(anns, l)
		if ann == nil {
			continue
		}
		aa := args(ann)
		op := strings.TrimPrefix(str(ann["name"]), "nccl:")
		dims, _ := aa["Input Dims"].([]any)
		types, _ := aa["Input type"].([]any)
		nel := 1.0
		if len(dims) > 0 {
			if dd, ok := dims[0].([]any); ok {
				for _, x := range dd {
					nel *= numOr(x, 0)
				}
			}
		}
		dt := ""
		if len(types) > 0 {
			dt = torchDtype(str(types[0]))
		}
		set := func(m map[string]any) {
			a := args(m)
			a["Collective name"] = op
			a["In msg nelems"] = int64(nel)
			a["Out msg nelems"] = int64(nel)
			a["dtype"] = dt
			a["Group size"] = world
			a["Process Group Name"] = "0"
			a["Process Group Description"] = "default_pg"
		}
		set(e)
		if r := enclosing(rpcs, l); r != nil {
			set(r)
		}
	}
}

func sortedRanks(m map[int]bool) []int {
	var out []int
	for r := range m {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}
