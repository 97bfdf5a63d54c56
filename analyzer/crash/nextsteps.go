package crash

import (
	"strings"

	"github.com/gputriage/gputriage/internal/quote"
)

const debugAgentCmd = "HSA_TOOLS_LIB=/opt/rocm/lib/librocm-debug-agent.so.2 HSA_ENABLE_DEBUG=1 ROCM_DEBUG_AGENT_OPTIONS='--save-code-objects=DIR --precise-memory' <app>, then grep -E 'stopped, reason|Disassembly' in the log"

const rocgdbCmd = "rocgdb -p <worker pid> -batch -x cmds with 'set pagination off', 'info agents', 'info dispatches', 'info queues', 'bt 30', 'detach', 'quit' (without the debug agent loaded: the two cannot share a process)"

// nextSteps proposes what to do next, in the spirit of the seed skills:
// debug agent for faults and traps, rocgdb for hangs, serialized reruns for
// asynchronous errors, kernel-API log escalation for SGLang/FlashInfer.
func nextSteps(f *Finding, facts *facts) []string {
	var out []string
	add := func(s string) { out = appendCap(out, s, 8) }
	kernelKnown := f.Kernel != ""
	switch f.Class {
	case ClassGPUMemoryFault:
		if !kernelKnown {
			add("Name the faulting kernel: rerun under the debug agent: " + debugAgentCmd)
		} else if f.Waves == 0 {
			add("Check the indexing of " + stepWord(f.Kernel, "the kernel") + " against its buffers for this launch (grid × block × elements per thread vs each allocation's size); to get the faulting instruction, rerun under the debug agent: " + debugAgentCmd)
		}
		if f.SavedCodeObject != "" {
			off := f.Details["stop_pc_offset_in_code_object"]
			s := "Disassemble the saved code object (*" + f.SavedCodeObject + ") with /opt/rocm/llvm/bin/llvm-objdump --disassemble-all"
			if off != "" {
				s += " and read the instructions just before offset " + off
			}
			add(s)
		}
		if f.Reason == "MEMORY_VIOLATION" || strings.Contains(f.Details["stop_instruction"], "s_waitcnt") {
			add("Rerun with ROCM_DEBUG_AGENT_OPTIONS=--precise-memory (rocgdb: set amdgpu precise-memory on) so the stop pc is the faulting instruction")
		}
		add("Serialize launches so the traceback points at the failing call: AMD_SERIALIZE_KERNEL=3 (older ROCm: HIP_LAUNCH_BLOCKING=1; CUDA: CUDA_LAUNCH_BLOCKING=1)")
		switch {
		case strings.HasPrefix(f.AddressKind, "NULL"):
			add("The address is NULL: look for an unset / null pointer or descriptor argument of the kernel")
		case strings.HasPrefix(f.AddressKind, "first page of a 2 MiB"):
			add("Check index bounds and buffer sizes: the address is just past a 2 MiB-aligned block (read/write past the end of an allocation)")
		case strings.HasPrefix(f.AddressKind, "write to a read-only"):
			add("A kernel wrote to read-only memory: check const / IPC-imported / read-only mapped buffers passed as outputs")
		}
		if f.Details["dmesg_page"] == "" && f.Details["source"] != "" {
			add("Correlate with the kernel log: sudo dmesg -T | grep -A9 'page fault' (same address page and pid = same fault; client TCP = shader, SDMA = copy engine)")
		}
		if w, ok := quote.Env("HSA_OVERRIDE_GFX_VERSION", facts.override); ok && facts.override != "" {
			add(w + " is set: retry without it or with a build for the native gfx target")
		}
	case ClassDeviceAssert:
		// the assert's own printf (file:line, function, condition) is in hand:
		// no rerun to get the text or to name the kernel
		assertText := strings.HasPrefix(f.Reason, "Assertion `") && f.Location != ""
		if !assertText && (!kernelKnown || f.HSAStatus == "HSA_STATUS_ERROR_EXCEPTION" && f.Waves == 0) {
			add("HSA 0x1016 / a trap without text: rerun under the debug agent to see ASSERT_TRAP vs MEMORY_VIOLATION and the kernel: " + debugAgentCmd)
		}
		if where := facts.location + " " + facts.locCode + " " + f.Location; containsAny(where, "multinomial", "Multinomial") {
			// the sampling op asserts on its probabilities, not on indices
			add("torch.multinomial asserts on invalid probabilities: look for NaN / Inf / negative values in probs (the logits went NaN upstream); SGLANG_KERNEL_API_LOGLEVEL=5 reports nan_count per call to find where NaN first appears")
		} else if f.KernelMeaning != "" {
			add("Check the indices fed to the op (" + f.KernelMeaning + "): every index must satisfy 0 <= idx < size(dim)")
		} else {
			add("Check the index tensors of indexing ops (index_copy_, index_put_, gather, scatter, embedding): 0 <= idx < size(dim)")
		}
		if assertText {
			add("The failing check is " + proseOr(clip(f.Location, 160), "in the assert's source file") + ": read that condition in the source and find which input broke it")
		} else {
			add("Get the assert text on ROCm: build/use PyTorch with TORCH_USE_HIP_DSA=1 (CUDA: TORCH_USE_CUDA_DSA=1)")
		}
		add("Serialize launches (AMD_SERIALIZE_KERNEL=3 / CUDA_LAUNCH_BLOCKING=1) so the traceback names the failing op")
		if f.QueueCount > 1 {
			add("All ranks failed at once: the bad indices are data-dependent and shared by every rank (check the batch / positions fed to the op)")
		}
	case ClassIllegalInstruction:
		add("Compare the kernel's target with the GPU (rocminfo | grep -m1 gfx): a code object built for another ISA (e.g. ISA908 = gfx908) executes illegal instructions")
		lib := "the library that ships " + stepWord(f.Kernel, "the kernel")
		switch {
		case !kernelKnown:
			lib = "the library that ships the kernel"
		case strings.Contains(f.KernelMeaning, "AITER"):
			lib = "AITER (its precompiled .co files are per gfx target)"
		case strings.Contains(f.KernelMeaning, "Tensile"):
			lib = "rocBLAS / hipBLASLt (Tensile)"
		}
		add("Rebuild or reinstall " + lib + " for the device's gfx target, or remove HSA_OVERRIDE_GFX_VERSION")
		if !kernelKnown {
			add("Name the kernel: AMD_SERIALIZE_KERNEL=3 with AMD_LOG_LEVEL=1 prints the CLR packet dump (Kernel Name), or rerun under the debug agent")
		}
	case ClassArchMismatch:
		if w, ok := quote.Env("HSA_OVERRIDE_GFX_VERSION", facts.override); ok && f.SubKind == "hsa_override" {
			// the override is the cause (override.go): never suggest it as the fix
			dev, tgt := f.Details["device_arch"], f.Details["override_target"]
			add("Rerun without " + w + " (unset it) and compare the output with a CPU or known-good run: wrong numbers that vanish are the " + tgt + " code running on " + dev)
			add("Use a build whose fat binary includes " + dev + " (PYTORCH_ROCM_ARCH=" + dev + " / --offload-arch=" + dev + "), or a GPU whose native target is supported")
			break
		}
		add("Find the GPU target: rocminfo | grep -m1 -o 'gfx[0-9a-f]*' (and its xnack/sramecc features)")
		add("Use a PyTorch/ROCm build whose fat binary includes that target, or rebuild with PYTORCH_ROCM_ARCH=<gfx> / --offload-arch=<gfx>")
		add("For unsupported consumer GPUs, HSA_OVERRIDE_GFX_VERSION (10.3.0 for gfx103x, 11.0.0 for gfx110x) runs the nearest supported ISA — unsupported, may fault")
		add("AMD_LOG_LEVEL=4 prints 'Missing CO for these ISAs' with the exact target id")
		if strings.Contains(f.Details["gpu_arch_in_log"], "gfx950") {
			add("A gfx942 (MI300X) image on gfx950 (MI355X) is a common mismatch: use an image built for gfx950")
		}
	case ClassVRAMOOM:
		switch f.SubKind {
		case "fragmentation":
			add("Fragmentation: set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (CUDA: PYTORCH_CUDA_ALLOC_CONF)")
		case "device_capacity":
			add("The request exceeds the device capacity: reduce batch / resolution / model size or shard; on APUs (UMA) raise the GTT/TTM limit (amdgpu.gttsize, ttm.pages_limit) or the BIOS carve-out")
		case "exhaustion":
			add("PyTorch holds almost all memory: reduce batch size, sequence length or KV-cache share (--mem-fraction-static / gpu_memory_utilization), or shard the model")
		case "other_tenants":
			add("Another process holds the GPU memory: rocm-smi --showpids (nvidia-smi) and stop it")
		}
		add("Watch memory while reproducing: rocm-smi --showmeminfo vram (nvidia-smi)")
	case ClassHostOOMKill:
		if f.SubKind == "shm" {
			// SIGBUS: shared memory, not the OOM killer (sigbus.go)
			add("Check shared memory: df -h /dev/shm while the job runs; in docker raise --shm-size (e.g. --shm-size=16g) or run with --ipc=host; in Kubernetes mount an emptyDir with medium: Memory at /dev/shm")
			add("Or pass less through it: fewer DataLoader workers (num_workers), smaller batches per worker, or torch.multiprocessing.set_sharing_strategy('file_system')")
			break
		}
		if step := f.Details["slurm_step"]; step != "" || strings.HasPrefix(f.Details["constraint"], "Slurm") {
			// the step's memory cgroup, not the node's RAM: the job asked for too little
			add("Slurm's step memory limit killed the task: sacct -j " + shellOr(step, "<jobid>") + " --format=JobID,ReqMem,MaxRSS,State shows the peak against the request; raise --mem / --mem-per-cpu (or --mem-per-gpu) or lower host RAM per task")
		}
		if c := facts.container.name; c != "" {
			add("Confirm the OOM killer: docker inspect --format '{{.State.OOMKilled}} {{.HostConfig.Memory}}' " + shellOr(c, "<container>") + " (true = the container's memory limit); on the host: sudo dmesg -T | grep -i 'killed process'")
		} else {
			add("Confirm the OOM killer: sudo dmesg -T | grep -i 'killed process'; in containers docker inspect --format '{{.State.OOMKilled}}'")
		}
		add("Reduce host RAM while loading weights (safetensors mmap, low_cpu_mem_usage, fewer loader workers) or raise the container memory / --shm-size limit")
		add("On exit 137, retry with a smaller batch and check the container limit; a manual kill -9 or a launcher timeout looks the same in the log")
	case ClassHostSegfault:
		add("Not a GPU fault (GPU faults on ROCm abort with SIGABRT): get the native stack with python -X faulthandler or gdb --args python …")
		add("Escalate the kernel-API log to level 10 (SGLANG_KERNEL_API_LOGLEVEL=10 with SGLANG_KERNEL_API_DUMP_DIR) to capture the last call and its inputs")
		add("Check native extensions, ctypes / pointer use and mismatched library versions at the crashing frame")
	case ClassGPUHangReset:
		add("Not an application memory bug unless a page fault precedes the reset: check firmware and driver versions (dmesg | grep -i -E 'MES|firmware'; update linux-firmware / amdgpu-dkms)")
		add("Collect the devcoredump: /sys/class/drm/cardN/device/devcoredump/data")
		add("On APUs check whether a display / compositor process shares the GPU")
	case ClassECCRAS:
		add("Hardware error: report the device (" + f.Device + ") to the operator / open a hardware ticket and drain the node")
		add("Inspect RAS counters: rocm-smi --showrasinfo all / amd-smi metric --ecc")
	case ClassDMADriverFault:
		if f.SubKind == "memory_in_use" {
			add("'Memory critical error … Memory in use' is the driver refusing to free / map memory, not a kernel bug: in a container pass --ipc=host and check SELinux (sudo ausearch -m AVC -ts recent | grep kfd; a denied map on /dev/kfd needs setsebool -P container_use_devices 1 or --security-opt label=disable)")
			add("On an APU (node-0 is the CPU agent's host memory), check the GTT / TTM limits and the amdgpu-dkms / kernel version against the ROCm release notes")
			break
		}
		if fn := f.Details["driver_function"]; fn != "" {
			// a kernel oops in the driver: nothing in the program to fix
			add("The kernel oopsed inside the " + f.Details["driver_module"] + " driver at " + fn + ": a driver bug; update amdgpu-dkms / the kernel (or the ROCm release that ships the driver) and report the full oops (BUG line, RIP, Call Trace) upstream")
			add("Reboot before the next run: after a driver oops the GPU and KFD state are unreliable")
			break
		}
		add("Copy-engine / driver path, not a shader bug: update amdgpu-dkms / the kernel; try HSA_ENABLE_SDMA=0 to route copies through shaders")
		add("'Failed to resume KFD' (userptr restore): check host memory pressure, IOMMU and HMM settings")
	case ClassCollectiveTimeout:
		if f.Details["backend"] == "gloo" {
			// gloo.go: a CPU-backend collective — no NCCL kernel, no flight recorder of NCCL's
			add("Find the rank that never reached the collective: compare every rank's log; the missing rank usually crashed, hung or was still busy (a checkpoint save or an evaluation on rank 0)")
			add("py-spy dump --pid <pid> on every rank: the rank outside torch.distributed's call is the one the others wait for")
			add("TORCH_DISTRIBUTED_DEBUG=DETAIL logs each collective per rank (and checks that all ranks call the same one); raise init_process_group(timeout=…) only for a rank that is slow on purpose")
			break
		}
		add("Find the rank that never reached the SeqNum: compare every rank's log; the missing rank usually crashed or hung first")
		add("Enable the flight recorder: TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1, analyse with python -m torch.distributed.flight_recorder.fr_trace")
		add("On stuck ranks: py-spy dump --pid <pid>, and " + rocgdbCmd + " to see whether an ncclDevKernel is still running")
		add("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL for the collective path")
	case ClassRCCLTransport:
		if f.Details["transport"] == "net_ib" {
			add("The network failed, not a GPU (seed 000 pattern 5): check the RDMA links on both hosts (ibstat / ibv_devinfo, port state and error counters), NCCL_IB_HCA / NCCL_IB_GID_INDEX, and rerun all_reduce_perf across the same hosts; IB status 12 = retry exceeded (peer unreachable), 5 = flushed after an earlier error")
		}
		// the catalog's kind of failure (ncclcatalog.go ncclWarnCatalog)
		switch f.Details["transport"] {
		case "shm":
			add("NCCL's shared-memory transport could not create its segment: /dev/shm is too small or full — docker run --shm-size=16g (or --ipc=host), on Kubernetes an emptyDir with medium: Memory mounted at /dev/shm; NCCL_SHM_DISABLE=1 only as a stopgap")
		case "device_map":
			add("Two ranks landed on one GPU or a rank on a GPU it cannot see: check CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES per rank, that each rank calls torch.cuda.set_device(local_rank) before init_process_group, and that --nproc_per_node matches the GPUs visible on the host")
		case "version":
			add("The ranks loaded different NCCL builds: compare the 'NCCL version' banner (torch.cuda.nccl.version()) on every host and pin one build (the nvidia-nccl wheel or the system libnccl, not both)")
		case "bootstrap", "net_socket", "proxy":
			add("A socket between ranks failed: set NCCL_SOCKET_IFNAME to an interface every host has and that routes between them (ip -br addr; ip route get <peer>), open the rendezvous and NCCL ports in the firewall, and check whether the peer process died first — its own log shows why ('peer closed' / 'Connection reset' on this rank is usually that)")
		}
		add("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,NET to see the failing transport")
		switch f.Details["transport"] {
		case "net_ib", "shm", "device_map", "version", "bootstrap", "net_socket", "proxy":
		default:
			add("Check P2P/IPC and IOMMU (amd_iommu=on iommu=pt), HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES and the rank→GPU map, container --ipc=host and --device flags")
		}
	case ClassCPUHang:
		pids := "<scheduler pid>"
		if len(facts.pyspyFailPIDs) > 0 {
			pids = intsString(facts.pyspyFailPIDs)
		}
		switch {
		case facts.pyspyDenied:
			add("py-spy is installed but was denied ptrace on " + pids + ": give the container the right (docker run --cap-add SYS_PTRACE, or kernel.yama.ptrace_scope=0 on the host) or run py-spy as root, then py-spy dump --pid " + pids + " --native")
		case facts.pyspyMiss != nil:
			add("py-spy is missing: pip install py-spy in the container so the watchdog can dump the scheduler stacks")
		}
		add("py-spy dump --pid " + pids + " --native on every rank: idle in NCCL/gloo waits = distributed deadlock; active+gil = busy loop")
		add("If the main thread waits in synchronize / .item(), a kernel never completed: " + rocgdbCmd)
	case ClassGPUKernelHang:
		if f.Details["hang_kind"] == "cross_rank_barrier_spin" || strings.Contains(kernelMeaning(f.Kernel), "collective kernel") {
			// seed 003 R3.5: anchor on the kernel + PC before any theory
			k := "the collective kernel"
			if f.Kernel != "" {
				k = stepWord(f.Kernel, k)
			}
			if strings.Contains(kernelMeaning(f.Kernel), "NCCL/RCCL") {
				add(k + " spins waiting for a peer: compare the collective sequence of every rank (NCCL_DEBUG=INFO opCount, or the flight recorder) to find the rank that skipped or reordered a call; unequal call counts (e.g. two-batch overlap with uneven micro-batch splits) desynchronise them")
			} else {
				add("Map the stuck PC to source in " + k + " (its start_sync / end_sync flag loop: rocgdb 'info line *PC' or llvm-objdump of the code object), then find why a peer never wrote its flag: a rank that skipped the call, a grid size that differs across ranks, or unequal call counts (e.g. two-batch overlap with uneven micro-batch splits) — compare the call count per rank")
			}
		}
		if f.Details["rocgdb_no_dispatches"] != "" {
			add("The rocgdb dump is inconclusive (no dispatches / queues): if the run was started with HSA_TOOLS_LIB=…librocm-debug-agent.so, relaunch without HSA_TOOLS_LIB (the debug agent and rocgdb cannot share the HSA debugger hook), attach rocgdb to a worker pid (not the dispatcher) and redo info dispatches / info queues")
		}
		add(rocgdbCmd)
		add("Take two dumps a few seconds apart: dispatches listed in both are the stuck kernels; Write > Read in info queues = pending packets")
		add("If HIP_LAUNCH_BLOCKING=1 / AMD_SERIALIZE_KERNEL=3 makes the hang vanish, it is an async race between streams: bisect the racing calls (split-K workspaces, shared buffers)")
	case ClassTritonCompile, ClassInvalidLaunch:
		if f.Class == ClassInvalidLaunch && f.Details["out_of_resource"] == "" {
			if f.Kernel == "" && f.HIPError == "hipErrorInvalidValue" {
				// which call refused its argument is unknown: name it first
				add("Serialize launches so the traceback points at the failing call: AMD_SERIALIZE_KERNEL=3 (older ROCm: HIP_LAUNCH_BLOCKING=1; CUDA: CUDA_LAUNCH_BLOCKING=1)")
			}
			launchSteps(f, facts, add)
			break
		}
		if res := f.Details["out_of_resource"]; res != "" {
			// OutOfResources: the config's tiles do not fit the device's per-block limit
			k := "the kernel"
			if f.Kernel != "" {
				k = stepWord(f.Kernel, k)
			}
			add("Shrink the launch config of " + k + " until its " + res + " fits (" + f.Details["resource_required"] + " needed, " + f.Details["resource_limit"] + " available): fewer num_stages, smaller BLOCK_M/N/K, or prune the autotune configs that exceed the limit")
			add("The limit is per device (shared memory / LDS per block), so a config tuned on a larger GPU can fail here: pick the configs for this GPU, or upgrade to a version of the library that does")
			break
		}
		if f.Details["failure"] == "driver_stub_build" {
			// the host compiler failed on Triton's C stub: no kernel, no cache entry involved
			add("Rerun the compiler command the CalledProcessError prints, by hand, to see the compiler's own error (missing Python headers / import library, a broken tcc / gcc / cl.exe, the GPU runtime's library not found)")
			add("Install the toolchain the Triton build expects (Python development headers; on Windows the Triton wheel's own tcc or MSVC build tools) and make the GPU runtime library visible to it (ROCm's amdhip64 / CUDA's libcuda)")
			break
		}
		add("Clear the caches (rm -rf ~/.triton/cache /tmp/torchinductor_$USER) and retry")
		// the failing frame names Triton's backend (triton/backends/amd|nvidia|intel/compiler.py,
		// crash-corpus r042-r044 vs crash-heldout-real x23): advise for that one
		if be := tritonBackend(facts.location); be != "" && be != "amd" {
			add("Check the Triton / " + be + " backend version pair; pin a known-good Triton (the failing pass is in triton/backends/" + be + ")")
		} else {
			add("Check the Triton / ROCm version pair; pin a known-good Triton or apply the backend workaround env (e.g. AMDGCN_USE_BUFFER_OPS=0)")
		}
		add("Reproduce the failing pass from the generated MLIR reproducer with triton-opt and report it upstream")
	case ClassFP8AttentionCrash:
		add("Retry without the FP8 KV cache (--kv-cache-dtype auto) or with another attention backend to confirm the kernel path")
		add("Try eager mode (--enforce-eager / --disable-cuda-graph) to see whether graph capture is involved")
		add("Name the exact attention kernel under the debug agent: " + debugAgentCmd)
	case ClassAsyncRace:
		add("The reported location is not the fault site: rerun with AMD_SERIALIZE_KERNEL=3 (older ROCm: HIP_LAUNCH_BLOCKING=1; CUDA: CUDA_LAUNCH_BLOCKING=1) so the error surfaces at the failing launch")
		add("Run under the debug agent with --precise-memory to stop at the faulting wave: " + debugAgentCmd)
		add("If the error moves or vanishes with PYTORCH_NO_HIP_MEMORY_CACHING=1, the out-of-bounds access depends on the allocator layout")
	case ClassKernelNotFound:
		mod, arg := "the code object", "<module>"
		if m := f.Details["module"]; m != "" {
			mod, arg = shellOr(m, mod), shellOr(m, "<module>")
		}
		add("Check that " + mod + " exists at the path the loader uses (the working directory / install prefix of the run)")
		add("Check the kernel name against the symbols in the module: /opt/rocm/llvm/bin/llvm-objdump --syms " + arg + " (C++ kernels are mangled: declare them extern \"C\" or use the mangled name in hipModuleGetFunction)")
		add("Check the module's target matches the GPU: /opt/rocm/llvm/bin/llvm-readelf --notes (amdhsa.target) vs rocminfo | grep -m1 gfx")
	case ClassNotGPU:
		if c := f.Culprit; c != nil && c.PID != nil && f.Reason != "" && strings.HasPrefix(f.Reason, "a worker exited with code") {
			// the launcher's traceback is its own; the worker's is earlier in its output
			who := "pid " + itoa(*c.PID)
			if c.Rank != nil {
				who = "rank " + itoa(*c.Rank) + " (" + who + ")"
			}
			add("The launcher only relays the exit: find " + who + "'s own traceback above the launcher's (or rerun with the @record decorator / TORCHELASTIC_ERROR_FILE so the failure table shows it)")
		}
		add("Application / environment error: fix the reported exception; no GPU fault was found in the evidence")
	}
	// kernel-API log escalation (seed 000)
	k := facts.kernelAPI
	switch f.Class {
	case ClassGPUMemoryFault, ClassDeviceAssert, ClassIllegalInstruction, ClassFP8AttentionCrash, ClassAsyncRace:
		switch {
		case k.calls == 0 && k.crashedDump() != nil:
			add("Replay the last dump: load inputs.pt of the last dump directory whose outputs.pt is missing (metadata.json execution_status != completed)")
		case k.calls == 0:
		case k.level >= 10:
			add("Replay the last dump: load inputs.pt of the last dump directory whose outputs.pt is missing (metadata.json execution_status != completed)")
		case k.level >= 3:
			add("Escalate the kernel-API log to level 10 with targeted dumps: SGLANG_KERNEL_API_LOGLEVEL=10 SGLANG_KERNEL_API_DUMP_DIR=… SGLANG_KERNEL_API_DUMP_INCLUDE='<failing api>'")
		default:
			add("Escalate the kernel-API log to level 3 (shapes/dtypes) or 5 (NaN/Inf statistics): SGLANG_KERNEL_API_LOGLEVEL=3 (FlashInfer: FLASHINFER_LOGLEVEL=3)")
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// stepWord is an input name (a kernel) in a step's prose: clipped, and one
// quoted shell word like every value in a step, so pasting the step — or
// its tail after a colon, where prose hands over to a command — cannot run
// or redirect anything the name carries (issue 24: a kernel named
// x;touch${IFS}pwned;# ran touch from "… and x;touch… is the victim");
// a name that cannot be quoted gives the placeholder.
func stepWord(name, placeholder string) string {
	return shellOr(shortKernel(name), placeholder)
}

// tritonBackend names the Triton backend of a traceback frame
// ("…/triton/backends/intel/compiler.py:304 in make_ttgir" → "intel").
func tritonBackend(loc string) string {
	_, rest, ok := strings.Cut(loc, "triton/backends/")
	if !ok {
		return ""
	}
	be, _, _ := strings.Cut(rest, "/")
	return be
}

// proseOr keeps an input value as it is in a step's prose when no shell
// reads anything in it ("Indexing.cu:1478 in indexSelectSmallIndex"), else
// quotes it as one word (a file name holding $(…) or quotes: a pasted step
// ran it), else gives the placeholder.
func proseOr(v, placeholder string) string {
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" ._:/,+=@()[]-", r)) {
			return shellOr(v, placeholder)
		}
	}
	return v
}

// shellOr quotes an input value for a suggested command, or gives the
// placeholder when it cannot be pasted as one word.
func shellOr(v, placeholder string) string {
	if w, ok := quote.Shell(v); ok && v != "" {
		return w
	}
	return placeholder
}

// launchSteps: an invalid launch's steps, from the geometry and limits the
// evidence has.
func launchSteps(f *Finding, facts *facts, add func(string)) {
	if bug := f.Details["driver_limits_bug"]; bug != "" {
		add("The driver's maxThreadsDim has zero entries (a HIP driver bug): do not validate block sizes against maxThreadsDim; use maxThreadsPerBlock and 1024 per dimension, and update the ROCm driver / runtime")
	}
	if lds := f.Details["dynamic_lds_bytes"]; lds != "" {
		// the log states what the launch asked: say it, with the limit
		limit := ldsLimitText(facts)
		step := "Shrink the shared memory (LDS) " + stepWord(f.Kernel, "the kernel") + " asks: " + lds + " bytes per workgroup against " + limit + " on this GPU — smaller tiles or fewer pipeline stages"
		if !strings.Contains(limit, "160 KiB") {
			step += "; a configuration tuned for a GPU with more LDS (gfx950: 160 KiB) does not fit here"
		}
		add(step)
	}
	add("Compare grid / block / LDS with the device limits (rocminfo: Workgroup Max Size 1024 threads, 1024 per dimension, " + ldsLimitText(facts) + " LDS per workgroup)")
	add("Keep blocks at ≤ 1024 threads (e.g. 32×32 instead of 64×64) and dynamic shared memory within the LDS limit")
	if f.Details["grid"] != "" || f.Details["block"] != "" {
		// the geometry is in hand: what is left to read is the
		// kernel's own resource use
		add("Read the kernel's resource use: compile with -Rpass-analysis=kernel-resource-usage, or /opt/rocm/llvm/bin/llvm-readelf --notes <code object> (.vgpr_count, .sgpr_count, .group_segment_fixed_size, .private_segment_fixed_size)")
	} else {
		add("AMD_LOG_LEVEL=3 logs every hipLaunchKernel with its geometry and the returned error (HIP has no hipErrorInvalidLaunchConfig: it returns hipErrorInvalidConfiguration 9 or hipErrorInvalidValue 1)")
	}
}
