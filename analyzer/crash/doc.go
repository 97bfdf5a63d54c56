// Package crash turns GPU crash and hang evidence (runtime logs, kernel
// logs, debugger and profiler text dumps) into a diagnosis: crash classes,
// the faulting kernel, the reason and what it means, addresses, nodes,
// ranks, evidence lines and next steps.
//
// Input is pushed as bytes, file by file, in chunks of any size (see
// Session). Delivery wrappers go first, as a line arrives (delivery.go: CI,
// syslog and Python logging stamps, journald, kubectl --prefix, compose,
// srun --label, mpirun --tag-output, torchrun tags; their rank / pid / host
// kept as the line's facts). A message a terminal wrapped at its width is joined back then
// (wrapjoin.go: a long line cut mid-word or inside brackets, the next line
// no record of its own), read at its first line. Every line is normalised (ANSI codes, carriage-return debris and
// known line prefixes removed — log stamps, launcher relays such as
// accelerate's "stderr: ", Open MPI's "[1,3]<stderr>:" and srun --label's
// "3: " before a known log shape (then on the rest of that task's lines), Metaflow's "[run/step/task (pid N)] ") and handed to one small parser per format;
// a one-pass keyword prefilter (prefilter.go) hands each line only to the
// parsers that can use it, so lines that match nothing cost one scan and no
// allocation.
// Parsers keep only bounded state, so logs of hundreds of megabytes are
// processed in constant memory. The package does no host I/O and compiles
// for GOOS=wasip1.
//
// Layering (issue 18, being moved to incrementally): extractors → facts →
// rules → advice. An extractor is a pure function from text to a typed fact
// (file, node, pid, address, reason …) that keeps no session state and never
// decides a class; its table test cites the real wordings it reads. A rule
// turns facts into findings and names what defeats it; a parser is a thin
// loop that calls an extractor and hands the fact to its rule. Converted:
//   - rocr.go / rocrfacts.go: VM fault, memory error ("Memory in use" is a
//     consequence after an earlier GPU error), HW exception, offload fault
//     (also the older plugin's "AMDGPU fatal error 1: Memory access fault by GPU n"),
//     legacy fault lines (also the pre-release debugger's "Memory access
//     fault by GPU agent: …" header), fault event, faulting page, CLR
//     Memory Fault Error;
//   - dmesg.go: extractPageFaultLine (every decode line, 4.1x–6.x kernels;
//     the pre-gfx9 "GPU fault detected: 146 …" / VM_CONTEXT1_PROTECTION_FAULT_ADDR
//     (a page number) / "VM fault (…, vmid N) at page …, read from 'TC4'"
//     decode by extractGMCFaultLine)
//     assembled per device and ruled by flush (continuation, vmid-0 reset
//     debris, any other vmid-0 fault without a process = the driver's own
//     VM → dma_driver_fault, SDMA/CPF client), extractKernelEvent (its
//     amdgpu / amdkfd messages by amdgpu.go's amdgpuMsgs catalog: ring and
//     job timeouts, reset begin / failed / succeeded, MES, KFD queue
//     preemption ("qcm fence", "The cp might be in an unrecoverable
//     state"), SMU silence, VRAM lost, RAS / poison consumption; PSP TA
//     loads and correctable errors deliberately none) + applyKernelEvent (OOM
//     killer — also the pre-4.19 victim line without "Out of memory:",
//     known by its kB accounting, and the report's "X invoked oom-killer:"
//     line alone (X is invoked_by, never the victim), the OOM reaper's
//     "reaped process N (comm)" naming the victim — resets (MES's
//     "failed to respond to msg=" and its older "failed to response msg=")
//     and the timed-out job's process, KFD, RAS, SVM/XNACK,
//     NVRM "fallen off the bus" without an Xid, BDF from its first line,
//     extractXid (the driver's Xid line, or a condensed copy that keeps
//     the code and the MMU decode — fault type and access type — a
//     less sure record),
//     GSP heartbeat / RPC timeouts without an Xid 119, the resource
//     manager's "Reset required [NV_ERR_RESET_REQUIRED]", xid.go's xidCatalog
//     (NVIDIA's whole Xid catalog, each code with the class it implies;
//     Xid 13's "Illegal Instruction" warp exception; an Xid "caused by
//     previous Xid N" takes N's class),
//     a kernel oops whose RIP/IP is in the GPU driver module within 12
//     lines of its "BUG:"/"Oops:" header → dma_driver_fault (a WARN
//     splat's RIP or a call-trace frame is none);
//     a paste that begins inside a decode block is a fault only when no
//     header of that device follows: dmesgParser.orphans; a process line
//     before any record of its device names the address line after it:
//     dmesgParser.pendProc);
//   - ggml.go: extractGGMLAlloc (llama.cpp's failed device allocation);
//   - frameworks.go: frameworkWordings (a framework's own message that
//     implies a class: vLLM's "No available memory for the cache blocks"
//     and "… on startup is less than desired GPU memory utilization",
//     SGLang's "Not enough memory. Please try to increase
//     --mem-fraction-static" → vram_oom; stable-diffusion-webui's "A tensor
//     with all NaNs was produced in Unet" → nan_inf_output; vLLM's sampler
//     warm-up OOM, PaddlePaddle's "Out of memory error on GPU N", CuPy's
//     pool OOM → vram_oom; flash-attn's "FlashAttention only supports
//     Ampere GPUs or newer" → arch_mismatch; Ray's memory monitor "Task was
//     killed due to the node running low on memory" → host_oom_kill;
//     PyTorch's "… with CUDA capability sm_N is not compatible with the
//     current PyTorch installation" → arch_mismatch),
//     extractRayOOMVictim (the memory monitor's "where the task (…,
//     pid=N, …) … exceeds the memory usage threshold" → that pid, the kill's
//     culprit), extractRayOOMKills (the raylet's "N Workers … killed due to memory
//     pressure (OOM)", N > 0), gloo.go's extractGlooTimeout (gloo's
//     "Timed out waiting Nms for send/recv operation to complete" →
//     collective_timeout, the gloo analogue of the NCCL watchdog), extractCUDAFailedWith (CTranslate2's "CUDA
//     failed with error <text>", read by cudaCatalog), extractGGMLOpFailure ("ggml_cuda_compute_forward: OP
//     failed") + ggmlLaunchRefused (the next line's "invalid argument" /
//     "invalid configuration argument" is the op's launch refused →
//     invalid_launch; elsewhere it decides nothing), extractBareLauncherReturn
//     (DeepSpeed's "exits with return code = N" without its stamp, read only
//     after the launcher's "sigkill_handler] Killing subprocess" lines);
//     exit.go's extractHydraExit reads Hydra's bare "EXIT CODE: 9" as
//     SIGKILL (a signalled rank's raw wait status);
//   - xla.go: extractXLAOOM (XLA's RESOURCE_EXHAUSTED device allocation
//     failure, also the pre-absl "Resource exhausted: …" and a line a paste
//     wrapped after "Out", joined by torchParser.xlaHead: JAX, TF's XLA
//     path; a TPU's vmem is none) → vram_oom;
//     extractTFOOM (TensorFlow's "OOM when allocating tensor … on
//     …/device:GPU:N by allocator GPU_N_bfc"; the CPU allocator is host
//     memory) → vram_oom on that GPU;
//   - fwalloc.go: extractFrameworkAlloc (ONNX Runtime's "BFCArena::AllocateRawInternal
//     … Failed to allocate memory for requested buffer of size N", TF 1.x's
//     BFC "Ran out of memory trying to allocate X"; TF 2's "not a failure"
//     warning and host allocators none) → vram_oom;
//   - cycles.go: extractCyclesCUDA (Blender Cycles' CUEW names: "Illegal
//     address in cuMemcpyDtoH(…)", "… in CUDA queue <step>", "Out of memory
//     in cuStreamCreate(…)") read through cudaerr.go's catalog;
//   - sigbus.go: a death by SIGBUS (DataLoader "killed by signal: Bus
//     error", the worker's "Unexpected bus error encountered in worker",
//     exitcode -7, faulthandler's "Bus error") is shared memory that ran out
//     → host_oom_kill, sub_kind shm (never host_segfault);
//   - ompi.go: extractOMPIDeath ("mpirun noticed that process rank N with
//     PID P on node H exited on signal S") → the signal's class, rank N;
//     a notice wrapped after "exited on" is joined with its "signal S"
//     line first (loaderwrap.go extractOMPIWrapHead);
//   - systemd.go: extractSystemdOOM (a unit's "A process of this unit has
//     been killed by the OOM killer." / "Failed with result 'oom-kill'.")
//     → host_oom_kill; a bare "status=9/KILL" is none; extractSystemdSignal
//     ("Main process exited, code=dumped|killed, status=11/SEGV" or 7/BUS)
//     → the signal's class; systemd's / systemd-coredump's own journal pid
//     names no culprit (normalize.go serviceManager);
//   - hipcallcode.go: extractHIPCallCode (an application's HIP check that
//     prints a hip* API and a bare hipError_t number — "failed with code:
//     2", "returned 209" — on a failure line) → the catalog row's class;
//   - tensorrt.go: extractTRTOOM (TensorRT's logger: "Error Code 2:
//     OutOfMemory", "Cuda Runtime (out of memory)", "Cuda Error in
//     allocate: 2", also the Windows build's qualified allocator method)
//     → vram_oom, less sure (a builder may only skip a tactic);
//   - tfalloc.go: extractTFDeviceAlloc (TensorFlow's StreamExecutor
//     "failed to allocate … from device: CUDA_ERROR_OUT_OF_MEMORY" /
//     "HIP_ERROR_OutOfMemory", the early ROCm ports' "hipError_t(1002)",
//     HIP's first numbering of hipErrorMemoryAllocation) → vram_oom, less sure;
//   - glibcheap.go: extractGlibcHeapAbort (glibc's heap check, "free():
//     invalid pointer", "double free or corruption (…)", also inside "***
//     Error in `prog': … ***") → host_segfault (a host memory bug, SIGABRT);
//   - rocalloc.go: extractRocAllocBuffer (MIOpen's / MIGraphX's / RPP's
//     "Memory not available to allocate buffer: N", a request over the
//     device's free memory) → vram_oom;
//   - torchoomtype.go: extractTorchOOMType (torch.OutOfMemoryError /
//     torch.cuda.OutOfMemoryError raised with a message that is not the
//     allocator's — ComfyUI's "Allocation on device", a wrapper's text, a
//     paste cut mid-word) → vram_oom, less sure;
//   - blaslib.go: extractBlasLibMissing (hipBLASLt's "rocblaslt error:
//     Cannot read / Could not load …TensileLibrary_lazy_gfxN.dat",
//     "hipModuleLoad failed: …Kernels.so-000-gfxN.hsaco") → a note alone
//     (rocBLAS may fall back); blasFailed: a BLAS status failing after it,
//     or hipErrorFileNotFound raised after a failed hipBLASLt call →
//     arch_mismatch, less sure;
//   - colltest.go: extractCollTestFailure (nccl-tests' / rccl-tests'
//     "Test CUDA|HIP failure file:line 'err'") → the relay catalog's
//     class; hipErrorInvalidDevice / cudaErrorInvalidDevice there (more
//     ranks than visible GPUs) → rccl_transport, less sure;
//   - rdma.go: extractRDMARetry (an RDMA completion that exhausted the
//     transport retries in UCCL's "CQE ERROR … status=12(transport retry
//     counter exceeded)", UCX's "Transport retry count exceeded on
//     mlx5_N:1/IB", IBV_WC_RETRY_EXC_ERR) → rccl_transport, net_ib advice;
//   - rocblas.go: extractTensileArch (rocBLAS without a Tensile library for
//     the device's arch, named — "Cannot read … for GPU arch : gfxN" or the
//     lazy loader's "Could not load …/TensileLibrary_lazy_gfxN.dat" — or the
//     5.2–5.7 fallback to the generic TensileLibrary.dat without the arch,
//     less sure; the Tensile host's "Could not initialize Tensile host: No
//     devices found", arch unnamed, less sure) → arch_mismatch;
//   - asmtarget.go: extractAsmUnsupported (the AMDGPU assembler's "error:
//     instruction not supported on this GPU" — inline asm, generated
//     assembly, hiprtc — code for another gfx target) → arch_mismatch;
//   - asmtarget.go: extractISAIncompatible (the HIP/OpenCL runtime's "The
//     program ISA …gfxA is not compatible with the device ISA …gfxB")
//     → arch_mismatch naming both targets;
//   - override.go: HSA_OVERRIDE_GFX_VERSION and the device's own arch →
//     applyOverrideMismatch (silent wrong results without any crash);
//   - buildtarget.go: extractBuildTargets (PYTORCH_ROCM_ARCH / GPU_TARGETS
//     / AMDGPU_TARGETS, --offload-arch, "built for gfx942") →
//     applyBuildTargetMismatch (a device arch outside the build's targets
//     is arch_mismatch without any error, seed 000 pattern 1; an override
//     defeats it);
//   - progress.go: extractProgress (vLLM / SGLang generation throughput
//     above 0, a token counter rising between lines of one shape) → the
//     progress fact that defeats the rocm-smi livelock rule (smiLivelock);
//   - trainstep.go: extractTrainStep (a step / iteration counter on a line
//     that reports the loss: Megatron, torchtitan, a plain loop) → a rise
//     after a py-spy dump in the same file defeats that dump's hang
//     readings (busy loop, GPU wait, collective wait: hang.go endFile);
//   - nvidia.go: extractSanitizerLine + the sanitizer rule;
//   - regaddr.go: register values per kernel → faultKernelByRegisters;
//   - stopinsn.go: parseStopInsn (the address operand of the "=>" / x/i $pc
//     memory instruction: global/flat off and saddr forms, buffer offen,
//     s_load/s_buffer_load; not scratch, idxen, ds) + the wave's registers
//     (agent lane tables, rocgdb info registers, per lane: wave32/wave64)
//     → addressFromStopInsn (the address when no runtime line printed one,
//     marked computed: address_source detail + note);
//   - debugagent.go: extractWaveHeaders (every header of a line, kernel
//     symbol, stop reasons, running; spliced when interleaved) → wave,
//     extractSplicedStop → splicedStop, extractDisasmRow (the "=>" stop row);
//     running waves are ruled at the end of the file (ruleRunning: a hang
//     only without a stopped wave; --all prints bystanders), and only the
//     agent's 56-dash rule marks the format (agentSeparator); codeObjectPID
//     (a "memory://<pid>#offset=…" code object URI names the faulting
//     process: the culprit of a fault without rank or worker prefix);
//   - smemattr.go: extractSmemAttr (cuda/hip/cuFuncSetAttribute(k,
//     MaxDynamicSharedMemorySize, N) and the invalid-value answer on its
//     line) → smemAttrRequest: refused, or over the AMD device's LDS
//     (launch.go ldsLimit: the log's figure, gfx950 alone 160 KiB, else 64
//     KiB) or a printed opt-in limit → invalid_launch of k;
//   - coretrap.go: a GPU core opened in rocgdb whose wave listing stops on
//     s_trap 2 (or the s_endpgm after it) → device_assert in that wave's
//     kernel; rocgdb.go's stopContext takes the memory instruction listed
//     before an imprecise stop row (s_waitcnt) as the access for
//     addressFromStopInsn;
//   - rocgdb.go: extractGdbStop (stop banner: "Thread N", one-thread
//     "Program received signal", a first letter cut by the paste), extractDispatchRow and
//     extractMIDispatches (info dispatches, table and MI), extractQueueRow
//     (info queues; write ahead of read = packets never consumed);
//   - gdbdump_extract.go: extractGdbDumpLine (every hang-dump line as one
//     fact: attach pid — also a section banner naming a worker's pid,
//     "===== TP2 pid 61012 =====" —, section header, "No … are currently active", agent /
//     queue / dispatch / lane / wave rows, lane switch, bt frame, host
//     thread, gdb's "[Inferior N (process P) detached]" naming the dump's
//     pid) with extractGdbAttach, extractAgentRow, extractLaneRow, and
//     extractMIRecord (-i=mi: "^done,agents/queues/dispatches=[…]" and
//     "=thread-group-started … pid" as the same facts);
//     gdbdump.go's section state machine only cuts them into dumps;
//   - launch_extract.go: extractThreadLimits, extractWGMax, extractLDSLimit
//     (device limits; a zero maxThreadsDim is the driver bug, decided by
//     applyThreadLimits), extractLaunchFailure (launch failed / launch log
//     geometry, LDS over limit, grid check, load / sync / async errors,
//     resource errors, a launch refused with invalid-value: "Failed to
//     launch kernel(s)|HIP graph: invalid argument" → invalid_launch, less
//     sure), extractModulePath → launch.go's launchFailure rule
//     (classes by HIP error; geometry against the limits in checkLaunch);
//   - cudagdb.go: extractCudaKernelRow, extractCudaThreadRow (info cuda
//     kernels / threads of an attach) → cudaHang; extractCudaGdbLine (the
//     stop: exception banner, focus switch, kernel<<<…>>> frame, kernels
//     row) → cudaGdbStop (nvidia.go's loop hands cuda-gdb lines to it);
//   - clrtrace.go: extractCLRTrace (AMD_LOG_LEVEL API trace: launch with
//     its geometry, hipModuleGetFunction's name, "Cannot find the
//     function", "api: Returned hipErrorX") → clrParser.trace (a module
//     launch names its kernel only when its process looked up exactly one
//     function: the launch's handle is not the address the lookup prints);
//   - clr.go: extractPacketLine (the queue-error / dispatch dump: Kernel
//     Name, HWq/SWq, grid, segments, rptr/wptr) assembled by packet;
//     dumpAfterAbort (a "Kernel Name:" dump after the queue abort);
//     extractHSAStatus (the status by name or code, queue, "[host: …, GPU
//     index: …, kernel: …]", and the pid of CLR's own stamp wherever it
//     stands — a runner's prefix keeps it from the line start; a status
//     name between quotes is a mention — grep patterns, marker lists,
//     notes — never a finding; a status an API call returned at start-up,
//     rocminfo's "Call returned HSA_STATUS_…", is a setup problem, never a
//     finding) → clrParser.hsa, which reads facts only;
//     extractMissingDeviceSymbol (CLR's "Cannot find Symbol with name: X":
//     a registered kernel the GPU's code object lacks) → arch_mismatch;
//   - clrassert.go: extractFatBinAssert (CLR's assert after digesting a
//     kernel's fat binary, "hip_code_object.cpp:400: StatCO::getStatFunc:
//     Assertion 'err == hipSuccess' failed") → arch_mismatch, less sure;
//   - roclib.go: extractRocLibStatus (rocblas_status_*, HIPBLAS_STATUS_*
//     — hipBLASLt's too — and miopenStatus*, each row its class or
//     deliberately none: miopenStatusUnknownError, internal errors and
//     NOT_SUPPORTED name no crash class) → applyRocLibStatus;
//   - cudalib.go: libStatuses (the status catalogs of cuBLAS / cuBLASLt,
//     cuDNN 8 and 9, cuFFT, cuSPARSE, cuSOLVER, cuRAND, each with the class
//     it implies or none) read by extractLibStatus (the first non-SUCCESS
//     status a line names) → applyLibStatus: an allocation on the device
//     → vram_oom, the library's kernel failed → gpu_memory_fault,
//     ARCH_MISMATCH → arch_mismatch, library / driver versions → not_gpu;
//     NOT_INITIALIZED and INTERNAL_ERROR decide nothing (consequences);
//     cuDNN's MAPPING_ERROR ("an access to GPU memory space failed") →
//     gpu_memory_fault, less sure; TensorFlow's / XLA's "Could not create
//     cudnn handle" is vram_oom unless the stream executor's next line,
//     extractDNNMemUsage ("Memory usage: F bytes free, T bytes total"),
//     shows most of the device free (then not_gpu: a cuDNN the driver or
//     framework does not match);
//   - cudaerr.go: cudaCatalog (CUDA 12's whole cudaError_t / CUresult
//     catalog, runtime and driver names, number, cudaGetErrorString text,
//     the class each implies or none, with why) read by extractCUDAError
//     (a name — cudaErrorX, CUDA_ERROR_X — else the longest text where a
//     wrapper prints the message on a line that speaks of CUDA, else
//     "CUresult N") → applyCUDAError, the fallback of torch.go's error
//     rule for what the HIP table lacks or reads as nothing (NVLink,
//     fabric manager 802, a PTX from a newer toolkit, hardware stack
//     error …); NCCL's own "Cuda failure N 'text'" is the NCCL rules';
//   - torch.go's extractTorchError also reads THC's "cuda runtime error
//     (N)" as CUDA's wording and a driver-API CUDA_ERROR_X name alone;
//   - dmesg.go's Xid 13 naming "Illegal Instruction" → illegal_instruction;
//   - codes.go: hipErrors (every hipError_t of hip_runtime_api.h with
//     hipGetErrorString's text) and hsaStatuses (every hsa_status_t, AMD's
//     extensions included), each with the class it implies or deliberately
//     none; hipPhrases (classed texts of 24+ bytes, read wherever they
//     stand on an error line; torch.go also reads ggml's "ROCm error: ");
//     cudaErrors / lookupCUDA (CUDA's reading of an error HIP
//     reads otherwise or lacks — an illegal instruction, 715, whoever prints
//     it; finalize.go hipReading undoes it on a ROCm session); error texts
//     compare without case (the runtime prints "ECC");
//   - nccl.go: extractWatchdog (also the header alone with its c10d stamp,
//     cut before "WorkNCCL(", and a line wrapped inside the work, joined
//     with the next lines by ncclParser.unwrap, also a header hard-wrapped
//     inside its sentence), extractNCCLColl (collective per rank,
//     opCount and communicator) → opDivergenceCulprit (ncclops.go: a
//     minority rank in another collective at the same opCount / SeqNum),
//     extractElasticRows (ChildFailedError rows, several when a paste ran
//     them together; read by the table rule and the root-cause entry),
//     extractWatchdogHang (the heartbeat monitor: "watchdog got stuck for N
//     seconds"), watchdogTimedOut (the timeout check's frame, a rank's
//     "dump signal due to a collective timeout"; "Some NCCL operations have
//     failed or timed out" is a timeout only when no NCCL error of the
//     file explains it, and a watchdog that caught an "NCCL error" is
//     rccl_transport), bareNCCLError ("ncclRemoteError …", "NCCL Error 2:
//     unhandled system error" without NCCL's debug prefix), extractNCCLCallFailure (a caller's report of a call's
//     result code: RCCL's test bed, glog CHECKs) → rccl_transport for the
//     library's own codes; the init banner's build ("NCCL version
//     2.26.2+cuda12.2" / "RCCL version 2.20.5+hip6.2") is a vendor fact
//     (formats nccl_cuda_build / rccl_build), so a plain NCCL log's advice
//     names CUDA's tools;
//   - ncclcatalog.go: ncclResultCatalog (every ncclResult_t, 0–8, with
//     ncclGetErrorString's text, c10d's reading and the class it implies;
//     ncclUnhandledCudaError relays an earlier CUDA error), extractNCCLResult
//     (c10d's "NCCL error in: file:line, <text>, NCCL version V", "NCCL
//     Error N: …", "NCCL error: …", "ncclX: <c10d's reading>", nccl-tests'
//     "NCCL failure file:line '…'", Horovod's "ncclCommInitRank failed:
//     …"), ncclWarnCatalog (the WARN wordings of init.cc, bootstrap.cc, misc/socket.cc, proxy.cc, shmutils.cc, p2p.cc,
//     net_ib.cc, aws-ofi-nccl's NET/OFI registration failure and RCCL's HIP failure, one row each with its reason (NCCL 2.26+'s RAS port retry, benign, is none); a WARN
//     whose debug prefix was cut counts only with its source location or
//     device bracket, bareWarn — a quoted WARN in notes is none),
//     extractNCCLCudaFailure ("Cuda failure [N] 'text'", "HIP failure
//     'hipErrorX'", read by codes.go's CUDA/HIP tables) → ncclRelayClass:
//     a relayed error that is a GPU failure of its own (out of memory, an
//     illegal address …) is that finding, and an rccl_transport finding
//     made only of relays is its consequence (relayCauses); c10d's "Last
//     error:" lines under the NCCL error add what failed
//     (ncclParser.lastError); each WARN row names its kind (socket,
//     bootstrap, proxy, /dev/shm, device map, version) for the advice;
//     c10d's "NCCL communicator was aborted on rank N" alone is a
//     collective_timeout on N unless an NCCL error of the file explains it;
//     extractWatchdogThreadRank: the watchdog thread ended by a CUDA error
//     ("[Rank 0] NCCL watchdog thread terminated with exception: CUDA error:
//     …", the default group's "[PG ID 0 PG GUID 0(default_pg) Rank N]")
//     gives torch.go's error finding that rank (a subgroup's rank is none);
//   - exit.go: extractChildExit (a supervisor's dead child with its pid),
//     extractLauncherReturn (DeepSpeed's launcher: "sigkill_handler] … exits
//     with return code = -9", a negative code the killing signal),
//     extractCalledProcessDeath (a Python launcher's "CalledProcessError:
//     Command '[python …, '--local_rank=3' …]' died with <Signals.SIGKILL:
//     9>", the rank its --local_rank; another program's death is none),
//     extractSlurmTask (srun's task death: host, tasks, signal / exit code,
//     "Out Of Memory"; one task names its rank), extractSlurmOOM
//     (slurmstepd's "Detected N oom-kill event(s)" → host_oom_kill),
//     extractShellDeath (a shell's "<pid> Killed", "Aborted (core dumped)";
//     the job line's pid is the killed process, named like the OOM
//     killer's victim), extractWindowsException (NTSTATUS 0xC0000005 …
//     in a crash handler, Event Viewer, WER or an IDE's exit line, read as
//     the POSIX signal),
//     extractGoSignal ("signal: aborted"), extractHydraExit (MPICH /
//     MVAPICH / Intel MPI's "EXIT CODE: 139", "EXIT STRING: Killed (signal
//     9)"; the banner's "PID N RUNNING AT host" above names its process),
//     deathlines.go's
//     extractSignalDeath (zsh's job notice, gdb on a core, "DataLoader
//     worker (pid N) is killed by signal", the Go runtime's SIGSEGV, the
//     kernel's "comm[pid]: segfault at …" / "traps: comm[pid] general
//     protection fault ip:…", auditd's ANOM_ABEND sig=N, and Google's
//     failure signal handlers in TensorFlow / Paddle / Ray: glog's "***
//     SIGSEGV (@0x…) received by PID N …; stack trace: ***" and absl's "***
//     SIGSEGV received at time=… on cpu N ***", SIGSEGV and SIGBUS only,
//     UCX's "[host:pid:thread:tid] Caught signal 11 (Segmentation fault: …)",
//     Open MPI's handler "[host:pid] Signal: Segmentation fault (11)") → the
//     pid a death line names is the culprit when alone (deathNamed),
//     extractSpawnDeath
//     (torch.multiprocessing.spawn's "process N terminated with signal
//     SIGKILL") → deathSignal / exitCode; gunicorn.go's
//     extractGunicornDeath (the arbiter's "Worker (pid:N) was sent SIGX!" /
//     "… was sent code N!", N a raw wait status) → deathSignal + deathNamed;
//     extractDeadWorker (hang.go: an executor's "Worker proc VllmWorker-N
//     died unexpectedly" / Ray "RayWorkerProc rank=[N]") → deadWorker, the
//     culprit when it is the one worker reported dead;
//     appFailure (culprit.go): a worker a launcher reports exited with a
//     plain code (no signal) → not_gpu with that worker as culprit when
//     nothing else failed;
//   - frtrace.go: extractFRTraceLine (fr_trace's text report: "Not all
//     ranks joining collective[:,] sequence number: N" / "… collective N at
//     entry M", its fields, and "Culprit rank N; Error type: X" of a
//     mismatch) → frTraceCulprit (the missing ranks, else the blamed rank);
//   - flightrecorder.go: extractFRGroups (every process group of a dump) →
//     frGroupCulprit (the rank behind inside any group of a TP×DP mesh);
//   - hang.go: extractPyFrame → pyspyCulprit (the process not in the
//     collective, or whose stack differs from all others); progressed (two
//     dumps of one process in different functions: slow, not hung);
//     stdlibWait (a helper thread parked in threading / queue / selectors
//     is no wait of the process; the main thread there is); SGLang's
//     "Pyspy dump for PID N" starts the process when the paste dropped
//     py-spy's "Process N:" header;
//     culprit.go workerCulprit: rocgdb dumps of ≥ 2 workers where all but
//     one spin in a collective kernel and that one runs another kernel — it
//     is the peer they wait for;
//     pyspycoll.go: distCollective (a thread inside torch.distributed's /
//     DeepSpeed's collective calls) → pyspyCollectiveHang (alone in the
//     evidence, and no process standing out: collective_timeout, not
//     cpu_hang); pyspyjson.go: extractPySpyJSON (py-spy dump --json, also
//     wrapped as {"Ok": {"stack_traces"}} or {"threads"}) rewritten as the
//     text dump and read by the same parser (PySpyJSON routes it as a log);
//   - torch.go: "Fatal Python error: Segmentation fault", also pygame's
//     handler ("(pygame parachute) Segmentation Fault") → host_segfault;
//     extractTraceFrame (faulthandler: the "Current thread"
//     block's first frame is the crash location; a dump of every thread
//     with no fatal error — a watchdog's "Timeout (0:05:00)!", only
//     "Thread 0x…" blocks — is a hang snapshot, torchParser.endFile),
//     extractHostAssert (glibc's assert() in host code: an abort, no device
//     assert; also LLVM's "Assertion `cond' failed." alone on its line, its
//     file wrapped onto the line before — glibc's backtick-apostrophe
//     quoting, where CUDA's device assert closes with a backtick), the C++
//     terminate handler's header with its "what():  …"
//     line glued on by a paste (the message is read as that line), and a
//     "what():" message that reads no error alone read joined with the line
//     after it (a terminal's wrap: "cudaMalloc fail" / "ed: out of memory"), extractPyException, extractAsyncHint (an error before the hint on the same line — a joined paste, a repr with "\n" escapes — is still read),
//     extractDebugSetting, extractLaunchBlocking (a setting in effect, not
//     the runtime's suggestion), extractTorchError (HIP/CUDA error text,
//     "Search for" name, error name — also XLA's "hipError_t(98)" by the
//     HIP code table, hipErrorNumberName — runtime phrase) → the error rule;
//   - triton.go: extractTritonPass (failed MLIR pass, kernel on the same
//     line), extractTritonAtName (the wrapped "@kernel]"), extractTritonError
//     (Triton Error [HIP|CUDA] with a code or, CUDA's wording, only the
//     message) → tritonErrorClass (a code object that does not load is a
//     compile / cache failure, an argument the launch refuses an invalid
//     launch), extractTritonLoadBinaryNull (the launcher's load_binary
//     returned NULL, short or CPython SystemError form),
//     extractTritonLaunch ("k[grid]("), extractTritonStubBuild (the
//     CalledProcessError of Triton's build of its driver stub — a .c
//     command naming triton: cuda_utils.c / hip_utils.c / main.c under
//     tcc, gcc or cl.exe → triton_compile, the host toolchain's failure),
//     and the Triton Error line is the
//     Triton rule's alone (torch.go's error rule skips it: no arch_mismatch
//     from the HIP error Triton wraps), the LLVM translation abort
//     ("Failed to translate TritonGPU to LLVM IR"),
//     extractTritonOutOfResources (per-block shared memory over the limit
//     → invalid_launch, with triton_compile as its consequence;
//     the text cut before its sizes is the same finding, less sure;
//     a text hard-wrapped after "shared memory," is joined with its next
//     "Required: …" line by tritonParser.oorHead),
//     extractTritonCacheFrame / extractTritonCachePath → tritonCacheFailure
//     (an exception raised in Triton's cache manager or naming a Triton
//     cache file is seed 000 pattern 4, not an application error);
//   - tbcarry.go: opensTraceback (a ranked record whose message opens a
//     traceback, SGLang's "[… TP2] Scheduler hit an exception: Traceback …")
//     → fileState.carryRank: the bare lines after it are that rank's until
//     a blank line, a line with its own rank or another bracketed header;
//   - jsonfield.go: unwrapJSONField (a log line shipped inside JSON: docker
//     json-file "log", a cloud logging export's "textPayload", journald's
//     "MESSAGE", "message" / "msg") → the text goes back through the line
//     path as the lines it holds; WrappedLog routes such a JSON document
//     (even one a paste cut short) as a log for the crash commands;
//   - container.go: extractContainerLine (docker inspect JSON fields and
//     --format answer, Kubernetes OOMKilled (describe's "Reason:", the API
//     object's "reason": "OOMKilled" / 2014's "OOM Killed"), the kubelet's eviction for node
//     memory → host_oom_kill, "signal N" as 128+N, the
//     container's name, Kubernetes' Terminated state and its reason) →
//     containerState / the exit-code rule; applyContainer: a SIGKILL / exit
//     137 the runtime says was not OOM-killed, with no record of memory
//     pressure (agg.memProof: the kernel's OOM killer, a cgroup OOM event),
//     is no host_oom_kill;
//   - nvmlhealth.go: extractNVMLInitFailure ("Failed to initialize NVML:
//     Driver/library version mismatch" …) → not_gpu, the node's setup;
//     extractSXid (the NVSwitch driver's "SXid (PCI:…): N, Fatal, …") →
//     a fatal one is ecc_ras, a non-fatal one nothing;
//   - torch.go's OOM rule also reads PyTorch ≤ 2.0's parenthesised
//     "(GPU 0; … total capacity; … already allocated; … free; … reserved in
//     total by PyTorch | cached)" into details and sub_kind, and
//     extractAllocatorNVMLAssert ("NVML_SUCCESS == r INTERNAL ASSERT FAILED
//     at …CUDACachingAllocator.cpp", 2.1+'s OOM path failing in NVML) →
//     vram_oom, less sure;
//   - nvml.go: extractDeviceLost (nvidia-smi "Unable to determine the
//     device handle … GPU is lost / Unknown Error", NVML GPU_IS_LOST, an
//     agent's "XID 79(…) detected on PCI:…") → deviceLostRule;
//   - kernelapi*.go: extractKAPILine (call / exception boundaries, dump
//     folders, dump filters, levels, metadata.json lines, %i file names),
//     extractKAPILogName, extractKAPIRow + extractKAPIFields (argument rows,
//     tensor fields, NaN/Inf counts) assembled by kapiRecord into one
//     kapiCallRecord per call (kernelapi_record.go, no class decided);
//     kernelapi_rules.go: crashedLog (the dead process's %i log: a
//     supervisor's dead pid, else the one pid a GPU fault's kernel line
//     names, else the only log whose last call never returned),
//     crashedDump, crashedDumpFinding, the first-NaN finding;
//   - culprit.go's weakest rule: the one process the kernel's own line
//     names (the OOM killer's victim, the owner of a timed-out GPU job, the
//     process a page-fault decode names) when no straggler rule names
//     anyone; two processes named leave none;
//   - the help-text, world-size, child-failure and reset-debris defeaters;
//     watchdogWaiter (culprit.go: a launcher's dead child that died of
//     SIGABRT on a rank that reported the timeout itself is a waiter);
//     faultBeforeReset (incident.go: a copy-engine fault before the ring
//     timeout / reset of its device is the reset's cause); dimBugFinding
//     (launch.go: seed 002's zero maxThreadsDim only explains a failure);
//     two culprit rules naming one pid share the rank one of them knows;
//     interleave.go reads a kernel name spliced by several writers back from
//     all its copies (assembleNames when no copy is clean);
//   - killlocale.go: extractLocalShellDeath (a shell's death report in
//     another locale, glibc libc.mo's strsignal msgstr: "已杀死", "Getötet",
//     "段错误 （核心已转储）" — alone, "<pid> <word>" after bash's line
//     prefix, or the "[1]+" job notice) → the signal's class like
//     extractShellDeath; unemphasize (a death line a reporter made bold);
//     loaderwrap.go: the DataLoader death message cut after "is killed by
//     signal:" joined with its next line; formatstring.go: quotedFormat (a
//     double-quoted format string with printf / brace placeholders is no
//     evidence for any parser: session.go handleRaw); frdump.go:
//     extractFRDumpStart (c10d's "ProcessGroupNCCL preparing to dump debug
//     info" with its rank tag → a collective failed or timed out, decided
//     like "failed or timed out" in ncclParser.endFile); amdgpu.go's
//     "cp queue preemption time out" row; gluedrecords.go:
//     splitGluedRecords (NCCL debug records a paste ran together are read
//     one by one); ncclreporter.go: the one process whose NCCL WARN reported
//     a transport failure is rccl_transport's weakest culprit (its rank from
//     NCCL's init record); slurm.go: extractSlurmCancel ("*** JOB … CANCELLED
//     AT … DUE TO TIME LIMIT / NODE FAILURE ***") → schedulerKill (a later
//     SIGKILL naming no process is Slurm's, not host_oom_kill);
//     mpiabort.go: extractMPIAbort → mpiTeardown (mpirun's kills after
//     MPI_Abort); miopenkernel.go: MIOpen's last "Preparing kernel: X" names
//     a memory fault's kernel when the fault names none; launchprefix.go:
//     torchelastic's "[default3]:" and TorchX's "app/0 [0]:" prefixes give a
//     line its local rank;
//   - crash-heldout7's rules: teardownKill (nccl.go: the job's own exit 137
//     after a child failed is the launcher's teardown), autotuneCandidate
//     (triton.go: an OutOfResources the autotuner skipped), pyspyBusyServing
//     (a busy py-spy dump while the latest throughput is above 0: progress.go
//     serving) and pyspyWaitersOfGPUHang (per-rank py-spy files: the
//     collective waiters of a GPU-waiting rank are its consequence) in
//     pyspycoll.go, sameCollective (ncclops.go: the watchdog's rank for an
//     NCCL divergence without one), the level-10 dump of several pids that
//     saved inputs and no outputs names the culprit (culprit.go, dumpPIDs),
//     siteMoved (finalize.go: one process's async error at two places puts
//     async_race first);
//   - crash-heldout8's rules: forcekill.go (extractForceKill: torchelastic's
//     "Unable to shutdown process N … forcefully exiting via
//     Signals.SIGKILL" → that pid's -9 is the teardown, teardownKill);
//     frenabled.go (extractFlightRecorderOn: the recorder already on is not
//     asked for); launch_extract.go's VGPR-budget wordings (the agent's
//     "(Out of VGPRs;)", HCC's "… exceeds HW limit due to big work group
//     size") → invalid_launch, and vgprExplainsISA (launch.go: HCC's
//     INVALID_ISA next to them is their echo); launchbounds.go (CLR's
//     "Launch params (…) are larger than launch bounds (N) for kernel K" and
//     XLA's "Failed to launch ROCm|CUDA kernel: K with block dimensions: …:
//     hipError_t(N)" with a configuration status → invalid_launch naming K;
//     launchBoundsExplainsTrap: the 719 the refusal returned is no device
//     assert); miopenkernel.go's "[run] kernel_name = K" names MIOpen's own
//     launch failure; rocgdb.go snapshotOf (a core file, a user breakpoint,
//     "exited normally": the dumps are no hang; a core's waves name the
//     crash's kernel, thread 1's LWP its process, culprit.go 6a);
//     trainstep.go hangSnapshotRanOn (a wave / rocgdb snapshot followed by
//     rising steps is no hang); hang.go watchdogOfGPUHang (a serving
//     watchdog beside a hang that names its kernel is its symptom);
//     sigquitpid.go (the pid of a pasted "kill -s SIGQUIT N" owns the agent's
//     running waves, culprit.go 6b); gdblock.go hostLockHang (an idle GPU
//     with ≥ 2 host threads in a lock wait is a cpu_hang); helptext.go's bare "USAGE:"
//     header; culprit.go: a CPF/SDMA fault's decode names its process, a
//     single-process rocgdb dump of waves only names the attached pid, the
//     one level-10 dump that recorded the exception (raisedDump), the
//     shell's job notice naming the pid an abort ended; vendor-true steps
//     (evidence.go: rocmStep drops CUDA asides on ROCm-only evidence, a
//     cudaError* name marks the CUDA runtime, cudaStep words invalid_launch
//     for CUDA; a hang with launches already serialized is not sent to
//     serialize them);
//   - crash-heldout12's rules: abortCulprit (mpiabort.go: the world rank
//     that called MPI_Abort after a GPU error of the same file names that
//     error's rank); launch_extract.go's reAPIRefusedValue (a hip*Launch*
//     API named with the hipErrorInvalidValue it returned → invalid_launch,
//     less sure); victimSilent (incident.go: the OOM killer's victim is a
//     worker that did not report the timeout — its rank absent from the
//     watchdogs, or the pid the launcher reported SIGKILLed — so the
//     others' watchdogs are its consequence, wherever the dmesg was pasted).
//
// Advice is built in one place from the finding and the facts in hand
// (nextsteps.go, evidence.go), every input value quoted with internal/quote.
// gdbhang.go holds the rules over the assembled rocgdb dumps (hangFindings:
// stuck dispatches, stalled queues, wave PC groups, progress between dumps;
// drainedIdle: no dispatches and every listed queue drained is an idle
// worker, not an inconclusive dump; workConsumed: the first dump's
// dispatches gone or a queue's Read advanced is a GPU at work, no hang);
// it reads no text. Older parsers (the host formats not listed here, and
// the shared exit-code rule Session.exitCode / deathSignal that the exit,
// torchrun and container parsers call) still match and write into the
// builder in one step.
//
// The grammars and the crash-class table follow docs/crash-formats.md of the
// shared project documentation.
package crash
