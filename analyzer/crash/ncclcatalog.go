package crash

import (
	"strconv"
	"strings"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// ncclResult is one ncclResult_t as nccl.h numbers it, with the text
// ncclGetErrorString prints (without its "(run with NCCL_DEBUG=… for
// details)" hint), PyTorch's reading of it (c10d getNcclErrorDetailStr,
// the line after "NCCL error in: …") and the class a failure with it
// implies ("" = no failure of the library or its transport).
type ncclResult struct {
	code   int
	name   string
	text   string
	interp string
	class  string
	// the library relays an earlier CUDA / HIP error: a GPU finding of
	// the same incident is the root and the NCCL error its consequence
	cuda bool
}

// ncclResultCatalog: NVIDIA/nccl src/nccl.h.in (ncclResult_t, ncclTimeout
// = 8 since 2.28) and src/init.cc ncclGetErrorString; RCCL keeps the same
// codes and texts. ncclInvalidArgument is the caller's bad argument, no
// failure of the library: alone (a call's result code) it makes no
// finding; c10d's "NCCL error in: …, invalid argument" still reads as the
// library's error by its "NCCL error" wording (ncclWarnCatalog).
var ncclResultCatalog = []ncclResult{
	{0, "ncclSuccess", "no error", "", "", false},
	{1, "ncclUnhandledCudaError", "unhandled cuda error", "Call to CUDA function failed", ClassRCCLTransport, true},
	{2, "ncclSystemError", "unhandled system error", "System call (e.g. socket, malloc) or external library call failed or device error", ClassRCCLTransport, false},
	{3, "ncclInternalError", "internal error", "Internal check failed", ClassRCCLTransport, false},
	{4, "ncclInvalidArgument", "invalid argument", "Invalid value for an argument", "", false},
	{5, "ncclInvalidUsage", "invalid usage", "This usually reflects invalid usage of NCCL library", ClassRCCLTransport, false},
	{6, "ncclRemoteError", "remote process exited or there was a network error", "A call failed possibly due to a network error or a remote process exiting prematurely", ClassRCCLTransport, false},
	{7, "ncclInProgress", "NCCL operation in progress", "", "", false},
	{8, "ncclTimeout", "timeout", "", ClassRCCLTransport, false},
}

func lookupNCCLCode(code int) *ncclResult {
	for i := range ncclResultCatalog {
		if ncclResultCatalog[i].code == code {
			return &ncclResultCatalog[i]
		}
	}
	return nil
}

func lookupNCCLName(name string) *ncclResult {
	for i := range ncclResultCatalog {
		if ncclResultCatalog[i].name == name {
			return &ncclResultCatalog[i]
		}
	}
	return nil
}

// lookupNCCLText resolves ncclGetErrorString's text (its hint may follow).
func lookupNCCLText(t string) *ncclResult {
	t = strings.TrimSpace(t)
	for i := range ncclResultCatalog {
		e := &ncclResultCatalog[i]
		if e.code != 0 && e.code != 8 && strings.HasPrefix(t, e.text) {
			return e
		}
	}
	return nil
}

// ncclResultFact is one report of an NCCL call's result: which result,
// and where the report came from (the source location c10d names, the
// NCCL version it prints).
type ncclResultFact struct {
	res     *ncclResult
	where   string
	version string
}

var (
	// c10d: "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with …), NCCL version 2.20.5"
	reNCCLErrorIn = lazyre.New(`NCCL error in: (\S+?:\d+), (.*?)(?:, NCCL version (\S+?))?\s*$`)
	// older torch, cupy, chainer: "NCCL Error 2: unhandled system error"
	reNCCLErrorN = lazyre.New(`NCCL Error (\d+): (\S.*)$`)
	// vLLM's pynccl and others: "RuntimeError: NCCL error: unhandled cuda error (run with …)"
	reNCCLErrorColon = lazyre.New(`NCCL error: (\S.*)$`)
	// c10d's detail line "ncclUnhandledCudaError: Call to CUDA function failed."
	reNCCLNameLine = lazyre.New(`(?:^|[\s:'"(\[])(nccl[A-Z]\w+)(?:: |\b)`)
	// nccl-tests: "NCCL failure all_reduce.cu:95 'unhandled cuda error'",
	// "Test NCCL failure common.cu:1204 'unhandled cuda error (run with …) / '"
	// Horovod's NCCL context (TensorFlow, PyTorch, MXNet) names the call
	// that failed: "ncclCommInitRank failed: unhandled system error", once
	// per wrapping layer ("ncclCommInitRank failed: ncclCommInitRank failed: …")
	reNCCLCallFailed = lazyre.New(`\b(nccl[A-Z]\w+) failed: (?:nccl[A-Z]\w+ failed: )*(\S.*)$`)
	reNCCLTestFail   = lazyre.New(`NCCL failure (\S+?:\d+) '([^'/]*)`)
)

// extractNCCLResult reads a report of an NCCL result in every wording the
// callers print (TestExtractNCCLResult cites each): c10d's "NCCL error in:
// …", "NCCL Error N: …", "NCCL error: …", the bare result name with
// c10d's interpretation, nccl-tests' "NCCL failure file:line '…'". A
// result name alone in running prose (an enum listing, a grep pattern) is
// none: the name must stand before its interpretation or a colon.
func extractNCCLResult(t string) (ncclResultFact, bool) {
	if m := findIf(t, "NCCL error in: ", reNCCLErrorIn); m != nil {
		if r := lookupNCCLText(m[2]); r != nil {
			return ncclResultFact{res: r, where: m[1], version: m[3]}, true
		}
		return ncclResultFact{where: m[1], version: m[3]}, true
	}
	if m := findIf(t, "NCCL Error ", reNCCLErrorN); m != nil {
		r := lookupNCCLCode(atoiDef(m[1], -1))
		if r == nil {
			r = lookupNCCLText(m[2])
		}
		if r != nil && r.class != "" {
			return ncclResultFact{res: r}, true
		}
	}
	if m := findIf(t, "NCCL error: ", reNCCLErrorColon); m != nil {
		if r := lookupNCCLText(m[1]); r != nil {
			return ncclResultFact{res: r}, true
		}
	}
	if m := findIf(t, " failed: ", reNCCLCallFailed); m != nil {
		if r := lookupNCCLText(m[2]); r != nil && r.class != "" {
			return ncclResultFact{res: r, where: m[1]}, true
		}
	}
	if m := findIf(t, "NCCL failure ", reNCCLTestFail); m != nil {
		if r := lookupNCCLText(m[2]); r != nil {
			return ncclResultFact{res: r, where: m[1]}, true
		}
	}
	if strings.Contains(t, "ccl") {
		for _, m := range reNCCLNameLine.FindAllStringSubmatch(t, 4) {
			r := lookupNCCLName(m[1])
			if r == nil || r.class == "" {
				continue
			}
			// the name followed by c10d's interpretation, or by a colon
			// and text: "ncclRemoteError: A call failed …"
			rest := t[strings.Index(t, m[1])+len(m[1]):]
			if r.interp != "" && strings.HasPrefix(rest, ": "+r.interp) || strings.HasPrefix(rest, ": ") && len(rest) > 4 || strings.HasPrefix(rest, " — ") {
				return ncclResultFact{res: r}, true
			}
		}
	}
	return ncclResultFact{}, false
}

// ncclWarn is one NCCL/RCCL WARN wording that means the communicator or
// its transport failed: sub is the text NCCL prints (src path and line
// in TestNCCLWarnCatalog), reason the finding's reason.
type ncclWarn struct {
	sub, reason string
	// held: a verbs or IB call failing while NCCL probes the network at
	// init; the same process's later "Init COMPLETE" defeats it
	// (ncclInitWarn)
	held bool
	// advisory: RCCL's start-up advice, support for another failure only
	// (ncclAdvisory)
	advisory bool
	// relay: the library relays a CUDA / HIP error (extractNCCLCudaFailure
	// reads which); a GPU finding of the same incident is its root
	relay bool
	// kind: what failed, for the advice (nextsteps.go): net_socket,
	// bootstrap, proxy, shm, device_map, version, net_ofi; "" = P2P/IPC or
	// unknown
	kind string
	// benign: a WARN NCCL prints on healthy runs too (NCCL 2.26+'s RAS
	// client retrying its port): no finding, and it hides the rows after it
	benign bool
}

// ncclWarnCatalog, in match order (first wins). The first rows are the
// historic ncclTransportErrors list, reasons unchanged; the rest follow
// NCCL's own WARN calls: init.cc (duplicate GPU, version mismatch),
// bootstrap.cc, misc/socket.cc and include/socket.h (connect / accept /
// recv / peer closed), proxy.cc, transport/shm.cc + misc/shmutils.cc,
// transport/p2p.cc, transport/net_ib.cc, RCCL's HIP failure wording.
var ncclWarnCatalog = []ncclWarn{
	{sub: "Got completion from peer", reason: "Got completion from peer"},
	{sub: "Got completion with error", reason: "Got completion from peer"}, // NCCL ≤ 2.8 names no peer
	{sub: "NCCL Error ", reason: "NCCL Error "},
	{sub: "Cuda failure", reason: "Cuda failure", relay: true},
	{sub: "hipIpcGetMemHandle failed", reason: "hipIpcGetMemHandle failed"},
	{sub: "ncclUnhandledCudaError", reason: "ncclUnhandledCudaError", relay: true},
	{sub: "invalid device ordinal", reason: "invalid device ordinal", kind: "device_map"},
	{sub: "Missing \"amd_iommu=on\"", reason: "Missing \"amd_iommu=on\"", advisory: true},
	{sub: "ncclSystemError", reason: "ncclSystemError"},
	{sub: "ncclInternalError", reason: "ncclInternalError"},
	{sub: "ncclRemoteError", reason: "ncclRemoteError"},
	{sub: "ncclInvalidUsage", reason: "ncclInvalidUsage"},
	{sub: "NCCL error", reason: "NCCL error"},
	{sub: "Call to ibv_", reason: "Call to ibv_", held: true},
	{sub: "connect() failed", reason: "connect() failed", kind: "net_socket"},
	{sub: "Connection refused", reason: "Connection refused", kind: "net_socket"},
	{sub: "Connection reset by peer", reason: "Connection reset by peer", kind: "net_socket"},
	// the socket transport and proxy losing a peer (nccl_test.go cites the threads)
	{sub: "Connection closed by remote peer", reason: "Connection closed by remote peer", kind: "net_socket"},
	{sub: "Software caused connection abort", reason: "Software caused connection abort", kind: "net_socket"},
	{sub: "Broken pipe", reason: "Broken pipe", kind: "net_socket"},
	{sub: "Socket recv failed", reason: "Socket recv failed", kind: "net_socket"},
	{sub: "Failed to execute operation Connect", reason: "Failed to execute operation Connect", kind: "proxy"},
	// catalog rows (TestNCCLWarnCatalog)
	{sub: "HIP failure", reason: "HIP failure", relay: true},
	{sub: "Duplicate GPU detected", reason: "Duplicate GPU detected: two ranks on one GPU (device visibility / rank→GPU map)", kind: "device_map"},
	{sub: "Mismatched NCCL version", reason: "Mismatched NCCL version across ranks", kind: "version"},
	{sub: "Bootstrap : no socket interface found", reason: "Bootstrap: no socket interface found (NCCL_SOCKET_IFNAME)", kind: "bootstrap"},
	{sub: "no socket interface found", reason: "no socket interface found (NCCL_SOCKET_IFNAME)", kind: "bootstrap"},
	{sub: "ncclSocketInit: connecting to address", reason: "socket init: no usable address (NCCL_SOCKET_IFNAME)", kind: "bootstrap"},
	{sub: "Net : Connect to", reason: "socket connect to a peer failed", kind: "net_socket"},
	{sub: "socketStartConnect: Connect to", reason: "socket connect to a peer failed", kind: "net_socket"},
	{sub: "Connect to ", reason: "socket connect to a peer failed", kind: "net_socket"},
	{sub: "NET/Socket : peer", reason: "NET/Socket: peer closed or broke the connection", kind: "net_socket"},
	{sub: "Proxy Call to rank", reason: "Proxy Call to a rank failed", kind: "proxy"},
	{sub: "Failed to execute operation", reason: "proxy operation failed", kind: "proxy"},
	{sub: "failed to extend /dev/shm", reason: "failed to extend /dev/shm (container --shm-size)", kind: "shm"},
	{sub: "Error while creating shared memory segment", reason: "creating the SHM transport's segment failed (/dev/shm)", kind: "shm"},
	{sub: "Error while attaching to shared memory segment", reason: "attaching to the SHM transport's segment failed (/dev/shm)", kind: "shm"},
	{sub: "Call to posix_fallocate failed", reason: "posix_fallocate of the SHM segment failed (/dev/shm)", kind: "shm"},
	{sub: "failed to open CUDA IPC handle", reason: "P2P: opening a CUDA IPC handle failed"},
	{sub: "Timeout waiting for", reason: "timed out waiting for a peer", kind: "net_socket"},
	{sub: "Accept failed", reason: "socket accept failed", kind: "net_socket"},
	{sub: "Call to recv from", reason: "socket recv from a peer failed", kind: "net_socket"},
	{sub: "Call to connect ", reason: "socket connect to a peer failed", kind: "net_socket"},
	{sub: "NET/IB : Unable to open device", reason: "NET/IB: unable to open the IB device"},
	{sub: "peer mapping resources exhausted", reason: "P2P peer mapping resources exhausted"},
	// misc/socket.cc's bind of a listening socket: an address this host
	// does not own (an IPv6 link-local interface picked for bootstrap,
	// rwth-i6/returnn#1470) or a port taken (NVIDIA/nccl#1882); the RAS
	// client's bind in ras/client_support.cc retries and is benign
	{sub: "ras/client_support.cc", reason: "NCCL RAS client port in use (benign)", benign: true},
	{sub: "Call to bind failed", reason: "socket bind failed (the interface NCCL chose, NCCL_SOCKET_IFNAME, or no free port)", kind: "bootstrap"},
	// aws-ofi-nccl (EFA, Slingshot CXI) could not register a buffer with
	// its libfabric provider: the network plugin failed, not the GPU
	{sub: "NET/OFI Unable to register memory", reason: "aws-ofi-nccl could not register memory with the libfabric provider", kind: "net_ofi"},
}

// ncclWarnRow returns the catalog row whose wording the line holds.
func ncclWarnRow(t string) *ncclWarn {
	for i := range ncclWarnCatalog {
		if strings.Contains(t, ncclWarnCatalog[i].sub) {
			return &ncclWarnCatalog[i]
		}
	}
	return nil
}

// ncclCudaFailure is the CUDA / HIP error NCCL relays: "Cuda failure
// 'out of memory'", "Cuda failure 1 'invalid argument'", RCCL's "HIP
// failure 'hipErrorOutOfMemory'" / "HIP failure 'out of memory'"; name,
// text and class by CUDA's catalog (cudaerr.go) or HIP's (codes.go).
type ncclCudaFailure struct {
	code       int // -1 when the line gives none
	text, name string
	class      string
}

var reNCCLCudaFailure = lazyre.New(`(?:Cuda|HIP|CUDA) failure (?:(\d+) )?'([^']*)'`)

func extractNCCLCudaFailure(t string) (ncclCudaFailure, bool) {
	if !strings.Contains(t, " failure ") {
		return ncclCudaFailure{}, false
	}
	m := reNCCLCudaFailure.FindStringSubmatch(t)
	if m == nil {
		return ncclCudaFailure{}, false
	}
	f := ncclCudaFailure{code: -1, text: m[2]}
	if m[1] != "" {
		f.code, _ = strconv.Atoi(m[1])
	}
	if strings.HasPrefix(f.text, "hipError") {
		if e := lookupHIPName(f.text); e != nil {
			f.name, f.text, f.class = e.name, e.text, e.class
		}
		return f, true
	}
	var ce *cudaErr
	if strings.HasPrefix(f.text, "cudaError") {
		ce = lookupCUDAName(f.text)
	}
	for i := range cudaCatalog {
		if ce == nil && cudaCatalog[i].code != 0 && cudaCatalog[i].text != "" && strings.EqualFold(cudaCatalog[i].text, f.text) {
			ce = &cudaCatalog[i]
		}
	}
	if ce == nil && f.code > 0 && !strings.HasPrefix(m[0], "HIP") {
		ce = lookupCUDACode(f.code)
	}
	if ce != nil {
		f.name, f.text, f.class = ce.cudaName(), ce.text, ce.class
		return f, true
	}
	if e := lookupHIPText(f.text); e != nil { // RCCL's HIP text
		f.name, f.class = e.name, e.class
	}
	return f, true
}

// ncclRelayClass: the GPU class a relayed CUDA / HIP error implies on its
// own (out of memory, an illegal address, a device assert …); "" when the
// error only says the library's CUDA call failed (invalid argument,
// unknown error, peer access, a platform problem) — then the transport
// finding stands alone.
func ncclRelayClass(f ncclCudaFailure) string {
	switch f.class {
	case ClassVRAMOOM, ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassECCRAS, ClassGPUHangReset:
		return f.class
	}
	return ""
}

// relayCauses: the GPU classes an NCCL error that only relays a CUDA error
// is the consequence of (incident.go).
var relayCauses = []string{ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassECCRAS, ClassGPUHangReset, ClassDMADriverFault, ClassVRAMOOM}
