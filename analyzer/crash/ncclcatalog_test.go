package crash

import (
	"fmt"
	"strings"
	"testing"
)

// ncclResult_t as NVIDIA/nccl src/nccl.h.in numbers it and src/init.cc
// ncclGetErrorString words it (RCCL: the same enum and texts, ROCm/rccl
// src/nccl.h.in); ncclTimeout (8) since NCCL 2.28.
func TestNCCLResultCatalog(t *testing.T) {
	want := map[int]string{0: "ncclSuccess", 1: "ncclUnhandledCudaError", 2: "ncclSystemError", 3: "ncclInternalError", 4: "ncclInvalidArgument", 5: "ncclInvalidUsage", 6: "ncclRemoteError", 7: "ncclInProgress", 8: "ncclTimeout"}
	if len(ncclResultCatalog) != len(want) {
		t.Fatalf("%d results, want %d", len(ncclResultCatalog), len(want))
	}
	for code, name := range want {
		r := lookupNCCLCode(code)
		if r == nil || r.name != name || lookupNCCLName(name) != r || r.text == "" {
			t.Errorf("code %d: %+v, want %s", code, r, name)
			continue
		}
		// no failure: success, in progress, the caller's own argument
		if none := code == 0 || code == 4 || code == 7; none != (r.class == "") {
			t.Errorf("%s: class %q", name, r.class)
		}
		if r.cuda != (code == 1) {
			t.Errorf("%s: relays CUDA = %v", name, r.cuda)
		}
	}
	// ncclGetErrorString's texts, hint included, resolve to their result
	for text, name := range map[string]string{
		"unhandled cuda error (run with NCCL_DEBUG=INFO for details)":      "ncclUnhandledCudaError",
		"unhandled system error (run with NCCL_DEBUG=INFO for details)":    "ncclSystemError",
		"internal error - please report this issue to the NCCL developers": "ncclInternalError",
		"invalid argument (run with NCCL_DEBUG=WARN for details)":          "ncclInvalidArgument",
		"invalid usage (run with NCCL_DEBUG=WARN for details)":             "ncclInvalidUsage",
		"remote process exited or there was a network error":               "ncclRemoteError",
		"NCCL operation in progress":                                       "ncclInProgress",
	} {
		if r := lookupNCCLText(text); r == nil || r.name != name {
			t.Errorf("%q: %+v, want %s", text, r, name)
		}
	}
}

// Every wording a caller reports an NCCL result in, from real logs.
func TestExtractNCCLResult(t *testing.T) {
	cases := []struct {
		src, text, name, where, version string
	}{
		{"https://github.com/NVIDIA/nccl/issues/1410 (c10d, NCCLUtils.hpp)",
			"[rank7]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
			"ncclUnhandledCudaError", "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275", "2.20.5"},
		{"https://github.com/NVIDIA/Megatron-LM/issues/661 (c10d, invalid usage)",
			".DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1727, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3",
			"ncclInvalidUsage", "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1727", "2.19.3"},
		{"https://github.com/verl-project/verl/issues/161",
			"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
			"ncclInvalidUsage", "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275", "2.20.5"},
		{"https://github.com/NVIDIA/Megatron-LM/issues/661 (c10d's reading, own line)",
			"ncclInvalidUsage: This usually reflects invalid usage of NCCL library.", "ncclInvalidUsage", "", ""},
		{"https://github.com/NVIDIA/nccl/issues/1410 (c10d's reading, rank-prefixed)",
			"[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.", "ncclUnhandledCudaError", "", ""},
		{"https://github.com/PKU-YuanGroup/Open-Sora-Plan/issues/386 (older torch / cupy)",
			"RuntimeError: NCCL Error 1: unhandled cuda error", "ncclUnhandledCudaError", "", ""},
		{"https://github.com/linjieli222/VQA_ReGAT/issues/41",
			"what():  NCCL Error 1: unhandled cuda error", "ncclUnhandledCudaError", "", ""},
		{"https://github.com/vllm-project/vllm/issues/7896 (pynccl)",
			"RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details) [repeated 6x across cluster]", "ncclUnhandledCudaError", "", ""},
		{"https://github.com/NVIDIA/nccl-tests/issues/322 (nccl-tests)",
			"HCA-14: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '", "ncclUnhandledCudaError", "common.cu:1204", ""},
		{"https://github.com/NVIDIA/nccl-tests/issues/5 (nccl-tests 1.x)",
			"NCCL failure all_reduce.cu:95 'unhandled cuda error'", "ncclUnhandledCudaError", "all_reduce.cu:95", ""},
		{"https://github.com/NVIDIA/nccl-tests/issues/166",
			"Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL developers / '", "ncclInternalError", "common.cu:958", ""},
		{"https://github.com/NVIDIA/nccl/issues/697",
			"ncclSystemError: System call (socket, malloc, munmap, etc) failed.", "ncclSystemError", "", ""},
		{"PyTorch c10d getNcclErrorDetailStr (NCCL_REMOTE_ERROR)",
			"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "ncclRemoteError", "", ""},
	}
	for _, c := range cases {
		f, ok := extractNCCLResult(c.text)
		if !ok || f.res == nil || f.res.name != c.name || f.where != c.where || f.version != c.version {
			t.Errorf("%s\n%q\n got %+v (%+v) ok=%v, want %s %q %q", c.src, c.text, f, f.res, ok, c.name, c.where, c.version)
		}
	}
	for _, s := range []string{
		// enum listings, grep patterns and prose name results without a report
		"typedef enum { ncclSuccess = 0, ncclUnhandledCudaError = 1,",
		"case ncclRemoteError:",
		"if the call returns ncclInProgress, poll ncclCommGetAsyncError",
		`grep -E "ncclSystemError|ncclInternalError" logs/*.txt`,
	} {
		if f, ok := extractNCCLResult(s); ok && f.res != nil && f.res.class != "" {
			t.Errorf("%q gave %+v", s, f.res)
		}
	}
}

// NCCL / RCCL WARN wordings that mean the communicator or its transport
// failed, each from a real log (thread per row), read as rccl_transport
// with the catalog's reason.
func TestNCCLWarnCatalogLines(t *testing.T) {
	cases := []struct {
		src, text, reason string
	}{
		// init.cc: two ranks on one GPU (ncclInvalidUsage)
		{"https://github.com/horovod/horovod/issues/3929", "[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000", "Duplicate GPU detected"},
		{"https://github.com/huggingface/accelerate/issues/2246", "qgpu2018:59522:59993 [0] init.cc:795 NCCL WARN Duplicate GPU detected : rank 6 and rank 4 both on CUDA device 31000", "Duplicate GPU detected"},
		{"https://github.com/horovod/horovod/issues/3949", "[1,1]<stdout>:chifflot-7:67918:67950 [0] init.cc:748 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 3b000", "Duplicate GPU detected"},
		// bootstrap.cc: no interface
		{"a Ray worker's relay (public repository log)", "(RayWorker pid=14391) pytorch-2-0-1-gpu-ml-g4dn-12xlarge-a1771cff5b2706f02b86883798ff:14391:14391 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found", "Bootstrap: no socket interface found"},
		// misc/socket.cc, include/socket.h: connect / recv / peer closed
		{"https://github.com/NVIDIA/nccl-tests/issues/166", "ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort", "Software caused connection abort"},
		{"RCCL on Slurm (public notes: nid005000)", "nid005000:30599:30731 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/data/driver/rccl/src/include/socket.h:415 NCCL WARN Net : Connect to 10.120.24.10<52061> failed : No route to host", "socket connect to a peer failed"},
		{"https://github.com/NVIDIA/nccl/issues/795", "a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from 10.200.84.247<58355> failed : Broken pipe", "Broken pipe"},
		{"https://github.com/NVIDIA/nccl/issues/1612 (prefix cut to the device)", "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>", "Connection closed by remote peer"},
		{"https://github.com/NVIDIA/nccl-tests/issues/166", "ubuntu:39964:40044 [0] proxy.cc:1143 NCCL WARN Socket recv failed while polling for opId=0x7f6f18cb7f40", "Socket recv failed"},
		// proxy.cc
		{"https://github.com/NVIDIA/nccl-tests/issues/111", "us1-shopee-ai-worker-live-10-67-208-67:406794:406838 [0] proxy.cc:1040 NCCL WARN [Proxy Service 8] Failed to execute operation Connect from rank 8, retcode 2", "Failed to execute operation Connect"},
		{"RCCL proxy (public repository log: g1064)", "g1064:11146:11197 [3] /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/src/proxy.cpp:912 NCCL WARN Proxy Call to rank 3 failed (Connect)", "Proxy Call to a rank failed"},
		// misc/shmutils.cc, include/shm.h: /dev/shm
		{"https://github.com/kserve/kserve/issues/3791", "hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes", "failed to extend /dev/shm"},
		{"https://github.com/ai-dynamo/dynamo/issues/1408", "[2025-06-06 09:52:01] ucwlai-k8snode-12-123:15016:15201 [1] misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-YrFC5V to 33030532 bytes, error: No space left on device (28)", "failed to extend /dev/shm"},
		{"https://github.com/pytorch/ci-infra/pull/490", "[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0] misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size 9637888), error: No space left on device (28)", "creating the SHM transport's segment failed"},
		{"https://github.com/NVIDIA/nccl/issues/290", "gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device", "posix_fallocate of the SHM segment failed"},
		{"https://github.com/vllm-project/vllm/issues/18831 (title)", "h1:2042:2042 [0] misc/shmutils.cc:147 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl- (size 192814336), error: No such file or directory (2)", "attaching to the SHM transport's segment failed"},
		// net_ib.cc / the IB plugin: completion errors
		{"https://github.com/NVIDIA/nccl/issues/1814", "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221", "NET/IB completion error (status 12)"},
		{"https://github.com/NVIDIA/nccl/issues/928", "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)", "NET/IB completion error (status 4)"},
		// misc/socket.cc: bind of a listening socket
		{"https://github.com/rwth-i6/returnn/issues/1470 (an IPv6 link-local ib0 for bootstrap)", "nd20-01:275975:275975 [0] misc/socket.cc:379 NCCL WARN Call to bind failed : Cannot assign requested address", "socket bind failed"},
		{"https://github.com/NVIDIA/nccl/issues/1882 (title: ports exhausted at 256×8 ranks)", "misc/socket.cc:409 NCCL WARN Call to bind failed: Address already in use", "socket bind failed"},
		// aws-ofi-nccl: its WARN carries function:line, not a file
		{"https://github.com/awslabs/awsome-distributed-ai/issues/203", "register_rail_mr_buffer:617 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 4. RC: -22, Error: Invalid argument", "aws-ofi-nccl could not register memory"},
		{"https://github.com/aws/aws-ofi-nccl/issues/584", "register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument", "aws-ofi-nccl could not register memory"},
		{"https://github.com/NVIDIA/nccl/issues/563 (pdsh host prefixes)", "10.0.87.143: 10.0.87.143: ip-10-0-87-143:149:298 [5] register_mr_buffers:465 NCCL WARN NET/OFI Unable to register memory (type = 1) for device 0. RC: 12, Error: Cannot allocate memory", "aws-ofi-nccl could not register memory"},
		{"https://github.com/aws/aws-ofi-nccl/issues/70", "10.0.87.143: 10.0.78.113: ip-10-0-78-113:3234:3425 [5] register_mr_buffers:469 NCCL WARN NET/OFI Unable to register memory (type = 1) for device 0. RC: -736476143, Error:", "aws-ofi-nccl could not register memory"},
		// the CUDA / HIP call NCCL made failed without a GPU failure of its own
		{"https://github.com/NVIDIA/nccl/issues/1283", "(train_rft pid=2657296) 2024-05-11 14:10:52.227 n176-080-198:2657296:2658232 [0] include/alloc.h:102 NCCL WARN Cuda failure 1 'invalid argument'", "Cuda failure"},
		{"https://github.com/NVIDIA/nccl/issues/1518 (device-only prefix)", "[1] misc/shmutils.cc:103 NCCL WARN Cuda failure 'invalid argument'", "Cuda failure"},
	}
	for _, c := range cases {
		d := diagnoseWhole("nccl.log", []byte(c.text+"\n"))
		f := hasClass(d, ClassRCCLTransport)
		if f == nil || !strings.HasPrefix(f.Reason, c.reason) {
			t.Errorf("%s\n%q\n got %v (%+v), want rccl_transport %q", c.src, c.text, classesOf(d), f, c.reason)
		}
	}
	// the same wordings quoted in troubleshooting notes and docs: no
	// NCCL debug prefix, no source location
	for _, s := range []string{
		`- **"NCCL WARN Bootstrap : no socket interface found"** → Network interface issue`,
		" NCCL WARN Error: failed to extend /dev/shm/nccl-03v824 to 4194660 bytes",
		"# set NCCL_SOCKET_IFNAME to the interface you want to use for NCCL communication, get from ifconfig. otherwise will encounter error(\"NCCL WARN Bootstrap : no socket interface found\")",
		"- `NCCL WARN Error: failed to extend /dev/shm/nccl-*` in logs",
		"   NCCL rejects the \"2 ranks, 1 GPU\" configuration with \"Duplicate GPU detected\".",
		// NCCL 2.26+'s RAS client retries its port: printed on healthy
		// runs (public A800 and two-node logs, find_string), no failure
		"[2025-08-22 17:44:36] A800:6801:6839 [1] ras/client_support.cc:159 NCCL WARN Call to bind failed: Address already in use",
		"[2026-09-09 11:29:56] ubuntu2:321049:321049 [0] ras/client_support.cc:181 NCCL WARN Call to bind failed: Address already in use",
		// the OFI wording quoted in an EFA cheatsheet's prose (a Korean
		// translation, find_string): words before the function:line
		"nccl>=2.19.0에서 NCCL 오류 register_rail_mr_buffer:617 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 4. RC: -22, Error: Invalid argument를 방지하기 위해 설정합니다.",
	} {
		if d := diagnoseWhole("notes.md", []byte(s+"\n")); len(d.Findings) != 0 {
			t.Errorf("%q: %v, want no finding", s, classesOf(d))
		}
	}
}

// Every row of the WARN catalog has a wording and a reason, and no row
// hides a later one (an earlier wording contained in a later one would
// always win).
func TestNCCLWarnCatalogTable(t *testing.T) {
	for i, w := range ncclWarnCatalog {
		if w.sub == "" || w.reason == "" {
			t.Errorf("row %d: %+v", i, w)
		}
		for _, v := range ncclWarnCatalog[i+1:] {
			if strings.Contains(v.sub, w.sub) && v.sub != w.sub {
				// allowed only when the earlier row says the same thing
				if w.relay != v.relay || w.held != v.held || w.advisory != v.advisory || w.benign != v.benign {
					t.Errorf("%q hides %q with other semantics", w.sub, v.sub)
				}
			}
		}
	}
}

// NCCL relaying a CUDA error: the CUDA error that names a GPU failure of
// its own is the root (out of memory → vram_oom), the NCCL error its
// consequence; an error that only says NCCL's CUDA call failed leaves
// rccl_transport alone (keyed: crash-heldout-real7 r01 'invalid argument').
func TestNCCLRelayedCUDAError(t *testing.T) {
	for _, c := range []struct {
		src, log, root string
	}{
		{"https://github.com/PKU-YuanGroup/Open-Sora-Plan/issues/386",
			"ins-7df6eojsifuykig9:3018451:3018451 [0] enqueue.cc:1085 NCCL WARN Cuda failure 'out of memory'\nRuntimeError: NCCL Error 1: unhandled cuda error\n", ClassVRAMOOM},
		{"https://github.com/NVIDIA/TensorRT-LLM/issues/1670",
			"VM-0-16-ubuntu:392:494 [2] enqueue.cc:43 NCCL WARN Cuda failure 'out of memory'\n\nVM-0-16-ubuntu:392:494 [2] enqueue.cc:54 NCCL WARN Cuda failure 'invalid resource handle'\n", ClassVRAMOOM},
		{"c10d's Last error block (the wording of NVIDIA/nccl#1410 with CUDA's out of memory)",
			"[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank0]: Last error:\n[rank0]: Cuda failure 'out of memory'\n", ClassVRAMOOM},
		{"RCCL's HIP wording (ROCm/rccl enqueue.cc HIPCHECK)",
			"node1:5521:5577 [0] /src/extlibs/rccl/build/hipify/src/enqueue.cc:1230 NCCL WARN HIP failure 'hipErrorOutOfMemory'\n", ClassVRAMOOM},
		{"NCCL's CUDA call hit the sticky illegal address of an earlier kernel",
			"node1:123:456 [0] enqueue.cc:1085 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'\n", ClassGPUMemoryFault},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		if len(d.Findings) == 0 || d.Findings[0].Class != c.root {
			t.Errorf("%s: %v, want %s first", c.src, classesOf(d), c.root)
			continue
		}
		if f := hasClass(d, ClassRCCLTransport); f == nil || f.ConsequenceOf != c.root {
			t.Errorf("%s: rccl_transport %+v, want a consequence of %s", c.src, f, c.root)
		}
	}
	for _, c := range []struct{ src, log, relayed string }{
		{"https://github.com/NVIDIA/nccl/issues/1410",
			"[rank7]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.\n[rank7]: Last error:\n[rank7]: Cuda failure 1 'invalid argument'\n", "invalid argument"},
		{"https://github.com/NVIDIA/nccl/issues/1283",
			"n176-080-198:2657296:2658232 [0] include/alloc.h:102 NCCL WARN Cuda failure 1 'invalid argument'\n", "invalid argument"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassRCCLTransport)
		if len(d.Findings) != 1 || f == nil || f.ConsequenceOf != "" || f.Details["relayed_error"] != c.relayed {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
	}
	// c10d's Last error naming the WARN NCCL kept
	for _, c := range []struct{ src, log, result, version, last string }{
		{"https://github.com/NVIDIA/Megatron-LM/issues/661",
			"torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1727, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 3 and rank 0 both on CUDA device f000\n",
			"ncclInvalidUsage", "2.19.3", "Duplicate GPU"},
		{"https://github.com/EasonXiao-888/MambaTree/issues/14",
			"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201, internal error, NCCL version 2.14.3\nncclInternalError: Internal check failed.\nLast error:\nBootstrap : no socket interface found\n",
			"ncclInternalError", "2.14.3", "no socket interface"},
		{"https://github.com/codefuse-ai/MFTCoder/issues/31",
			"torch.distributed.DistBackendError: NCCL error in: /opt/conda/conda-bld/pytorch_1682343995622/work/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1207, internal error, NCCL version 2.14.3\nncclInternalError: Internal check failed.\nLast error:\nBootstrap : no socket interface found\nWARNING:torch.distributed.elastic.multiprocessing.api:Sending process 3710366 closing signal SIGTERM\n",
			"ncclInternalError", "2.14.3", "no socket interface"},
		{"https://github.com/NVIDIA/nccl/issues/1837 (a launcher's [trainer0|0]: prefix)",
			"[trainer0|0]:ncclInternalError: Internal check failed.\n[trainer0|0]:Last error:\n[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)\n",
			"ncclInternalError", "", "ncclSocketInit"},
	} {
		d := diagnoseWhole("run.log", []byte(c.log))
		f := hasClass(d, ClassRCCLTransport)
		if f == nil || f.Details["nccl_result"] != c.result || !strings.Contains(f.Details["last_error"], c.last) || f.Details["nccl_version"] != c.version {
			t.Errorf("%s: %s", c.src, d.JSON())
		}
	}
}

// Advice follows what the catalog says failed: /dev/shm, two ranks on one
// GPU, a socket between ranks; a P2P/IPC failure keeps the P2P advice.
func TestNCCLWarnKindAdvice(t *testing.T) {
	for _, c := range []struct{ src, log, want, not string }{
		{"https://github.com/kserve/kserve/issues/3791", "hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes\n", "--shm-size", "IOMMU"},
		{"https://github.com/huggingface/accelerate/issues/2246", "qgpu2018:59522:59993 [0] init.cc:795 NCCL WARN Duplicate GPU detected : rank 6 and rank 4 both on CUDA device 31000\n", "set_device(local_rank)", "IOMMU"},
		{"https://github.com/NVIDIA/nccl/issues/795", "a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from 10.200.84.247<58355> failed : Broken pipe\n", "NCCL_SOCKET_IFNAME", "IOMMU"},
		{"https://github.com/EasonXiao-888/MambaTree/issues/14", "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201, internal error, NCCL version 2.14.3\nncclInternalError: Internal check failed.\nLast error:\nBootstrap : no socket interface found\n", "NCCL_SOCKET_IFNAME", "IOMMU"},
		{"the repository's RCCL P2P fixture (hipIpcGetMemHandle failed)", "node01:21457:21502 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/hipify/src/transport/p2p.cc:287 NCCL WARN hipIpcGetMemHandle failed : invalid argument\n", "IOMMU", "--shm-size"},
	} {
		f := hasClass(diagnoseWhole("run.log", []byte(c.log)), ClassRCCLTransport)
		if f == nil {
			t.Errorf("%s: no rccl_transport", c.src)
			continue
		}
		all := strings.Join(f.NextSteps, "\n")
		if !strings.Contains(all, c.want) || strings.Contains(all, c.not) {
			t.Errorf("%s: steps %q, want %q without %q", c.src, f.NextSteps, c.want, c.not)
		}
	}
}

// c10d's "NCCL communicator was aborted on rank N." (pytorch/pytorch#64241,
// Search-R1#170) says a collective failed or timed out, not which: a
// collective_timeout on that rank unless an NCCL error of the file explains
// it; with the original reason it reads that reason.
func TestNCCLCommunicatorAborted(t *testing.T) {
	d := diagnoseWhole("run.log", []byte("RuntimeError: NCCL communicator was aborted on rank 0.\n"))
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || len(f.Ranks) != 1 || f.Ranks[0] != 0 || len(d.Findings) != 1 {
		t.Errorf("alone: %s", d.JSON())
	}
	d = diagnoseWhole("run.log", []byte("NCCL communicator was aborted on rank 1. Original reason for failure was: Work: WorkNCCL(OpType=ALLREDUCE, TensorShape=[1], Timeout(ms)=2000) timed out in call to wait().\n"))
	if f := hasClass(d, ClassCollectiveTimeout); f == nil || len(f.Ranks) != 1 || f.Ranks[0] != 1 {
		t.Errorf("pytorch#64241: %s", d.JSON())
	}
	d = diagnoseWhole("run.log", []byte("node1:123:456 [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer node2<42830>\nRuntimeError: NCCL communicator was aborted on rank 0.\n"))
	if hasClass(d, ClassCollectiveTimeout) != nil || hasClass(d, ClassRCCLTransport) == nil {
		t.Errorf("with the socket error: %v", classesOf(d))
	}
}

// A Python launcher's CalledProcessError for a child a signal killed is
// that death, on the child's --local_rank; a build tool that died under
// subprocess is not the job.
func TestExtractCalledProcessDeath(t *testing.T) {
	for _, c := range []struct {
		src, text  string
		code, rank int
	}{
		{"https://github.com/microsoft/Swin-Transformer/issues/267", "_subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'main.py', '--local_rank=3', '--cfg', 'configs/swin/swin_tiny_patch4_window7_224.yaml', '--data-path', '/content/Swin-Transformer/dataset/cats_and_dogs_filtered', '--batch-size', '32']' died with <Signals.SIGKILL: 9>._", -9, 3},
		{"https://github.com/bmaltais/kohya_ss/issues/1065 (accelerate, no rank)", "subprocess.CalledProcessError: Command '['/home/user/kohya_ss/venv/bin/python', 'train_network.py']' died with <Signals.SIGKILL: 9>.", -9, -1},
	} {
		d, ok := extractCalledProcessDeath(c.text)
		if !ok || d.code != c.code || d.rank != c.rank {
			t.Errorf("%s: %+v %v", c.src, d, ok)
		}
	}
	for _, s := range []string{
		// public repository logs: a compiler and a build tool segfaulting under subprocess
		"subprocess.CalledProcessError: Command '['/root/Git.d/pytorch/triton-ascend/triton/python/triton/backends/huawei/triton-adapter-opt', '/tmp/tmpr8jddcmo/kernel.ttir.mlir', '--triton-to-linalg=global-kernel=false named-ops=True', '-o', '/tmp/tmpr8jddcmo/kernel.ttadapter.mlir']' died with <Signals.SIGSEGV: 11>.",
		"subprocess.CalledProcessError: Command '['cargo', 'metadata', '--manifest-path', 'Cargo.toml', '--format-version', '1']' died with <Signals.SIGSEGV: 11>.",
	} {
		if d, ok := extractCalledProcessDeath(s); ok {
			t.Errorf("%q: %+v", s, d)
		}
	}
	d := diagnoseWhole("run.log", []byte("_subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'main.py', '--local_rank=3', '--batch-size', '32']' died with <Signals.SIGKILL: 9>._\n"))
	if f := hasClass(d, ClassHostOOMKill); f == nil || len(f.Ranks) != 1 || f.Ranks[0] != 3 {
		t.Errorf("Swin-Transformer#267: %s", d.JSON())
	}
}

// NCCL's init banner names its build: "+cudaX" is NVIDIA's (real banners:
// "NCCL INFO NCCL version 2.26.2+cuda12.2", "… 2.22.3+cuda12.2",
// "… 2.29.2+cuda12.8" in public NCCL_DEBUG=INFO logs), RCCL's "RCCL version
// 2.20.5+hip6.2 HEAD:45b618a+" is ROCm's. A plain NCCL log with no other
// vendor-only format then gets CUDA's tools in its advice, an RCCL log
// ROCm's.
func TestNCCLBuildBannerVendor(t *testing.T) {
	body := "gpu-st-ml-2:49542:49542 [0] NCCL INFO %s\n" +
		"gpu-st-ml-2:49542:49600 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n" +
		"gpu-st-ml-2:49542:49600 [0] transport/p2p.cc:275 NCCL WARN Cuda failure 'peer access is not supported between these two devices'\n"
	steps := func(banner string) string {
		d := diagnoseWhole("x.log", []byte(fmt.Sprintf(body, banner)))
		if len(d.Findings) == 0 || d.Findings[0].Class != ClassRCCLTransport {
			t.Fatalf("%s: got %v", banner, classesOf(d))
		}
		return strings.Join(d.Findings[0].NextSteps, "\n")
	}
	for _, b := range []string{"NCCL version 2.26.2+cuda12.2", "NCCL version 2.29.2+cuda12.8"} {
		if s := steps(b); strings.Contains(s, "amd_iommu") || strings.Contains(s, "HIP_VISIBLE_DEVICES") || !strings.Contains(s, "nvidia-smi topo") {
			t.Errorf("%s: CUDA build got ROCm advice:\n%s", b, s)
		}
	}
	if s := steps("RCCL version 2.20.5+hip6.2 HEAD:45b618a+"); !strings.Contains(s, "amd_iommu") || strings.Contains(s, "nvidia-smi") {
		t.Errorf("RCCL build lost ROCm advice:\n%s", s)
	}
}
