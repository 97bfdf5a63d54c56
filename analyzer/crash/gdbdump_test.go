package crash

import (
	"strings"
	"testing"
)

// rocgdb hang-dump rows in real wordings; each row names its source.
func TestExtractGdbAttach(t *testing.T) {
	for _, c := range []struct {
		src, line string
		pid       int
		ok        bool
	}{
		// gdb's own attach banner and the echoed attach command of a hang script (seed 003 R3)
		{"gdb attach", "Attaching to process 4242", 4242, true},
		{"gdb attach program", "Attaching to program: /usr/bin/python3.10, process 31337", 31337, true},
		{"echoed command", "$ timeout 90 rocgdb -p 2920 -batch -ex 'info dispatches'", 2920, true},
		// https://github.com/ROCm/ROCgdb/issues/3 and /issues/11: a failed attach names no attached process
		{"ROCgdb#3", "warning: Could not attach to process 72409", 0, false},
		{"ROCgdb#11", "Could not attach to process 107215 (rc=-2)", 0, false},
		// per-worker banners of one file collecting several workers' dumps,
		// the recipe's "echo === info agents ===" banners (seeds 001/003)
		// carrying the worker's pid
		{"per-pid banner", "===== snapshot 1 03:40:10 TP2 pid 61012 =====", 61012, true},
		{"hash banner", "### worker pid=7004 ###", 7004, true},
		{"section banner", "=== info dispatches ===", 0, false},
		{"table rule", "==========================================", 0, false},
		{"prose about a pid", "the worker with pid 7004 hung", 0, false},
	} {
		pid, ok := extractGdbAttach(c.line)
		if pid != c.pid || ok != c.ok {
			t.Errorf("%s: got %d %v", c.src, pid, ok)
		}
	}
}

func TestExtractLaneRow(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      laneRow
		ok        bool
	}{
		// ROCgdb docs "info lanes" (../shared/testdata/crash/SOURCES.md fx05)
		{"ROCgdb docs", "* 0    A     AMDGPU Lane 1:2:1:1/0 (0,0,0)[0,0,0] kern () at /home/user/saxpy.cpp:7", laneRow{wave: "1:2:1:1", workgroup: "0,0,0", x: 0, frame: "kern () at /home/user/saxpy.cpp:7"}, true},
		{"inactive lane", "  33   I     AMDGPU Lane 1:2:1:1/33 (0,0,0)[33,0,0]", laneRow{inactive: true, wave: "1:2:1:1", workgroup: "0,0,0", x: 33}, true},
		{"no state column", "  5    AMDGPU Lane 1:4:1:377/5 (1291,0,0)[5,0,0] 0x7f00 in k ()", laneRow{wave: "1:4:1:377", workgroup: "1291,0,0", x: 5, frame: "0x7f00 in k ()"}, true},
		// a lane switch banner is not an info lanes row (https://github.com/llvm/llvm-project/issues/170211, s18)
		{"llvm#170211 switch", "[Switching to thread 6, lane 0 (AMDGPU Lane 1:1:1:8/0 (0,0,0)[224,0,0])]", laneRow{}, false},
	} {
		got, ok := extractLaneRow(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v", c.src, got, ok)
		}
	}
}

// Every kind of hang-dump line, in real wordings: ROCgdb's docs and tests
// as quoted in ../shared/testdata/crash/fx05_… (SOURCES.md), the lane
// switch of https://github.com/llvm/llvm-project/issues/170211, and gdb's
// "thread apply all bt" host-thread header.
func TestExtractGdbDumpLine(t *testing.T) {
	for _, c := range []struct {
		src, line string
		want      gdbLine
	}{
		{"attach", "Attaching to process 4242", gdbLine{kind: glAttach, pid: 4242}},
		{"fx05 agents header", "Id State Target Id                  Architecture Device Name        Cores Threads Location", gdbLine{kind: glHeader, sec: secAgents}},
		{"fx05 queues header", "Id   Target Id                Type         Read   Write  Size     Address", gdbLine{kind: glHeader, sec: secQueues}},
		{"fx05 dispatches header", "Id   Target Id                      Grid    Workgroup Fence   Kernel Function", gdbLine{kind: glHeader, sec: secDispatches}},
		{"fx05 threads header", "Id   Target Id                                     Frame", gdbLine{kind: glHeader, sec: secThreads}},
		{"fx05 lanes header", "Id   State Target Id                            Frame", gdbLine{kind: glHeader, sec: secLanes}},
		{"unknown header", "Id   Target Id", gdbLine{kind: glClaimed}},
		{"fx05 no dispatches", "No dispatches are currently active.", gdbLine{kind: glNoActive, sec: secDispatches}},
		{"no queues", "No queues are currently active.", gdbLine{kind: glNoActive, sec: secQueues}},
		{"fx05 agent", "* 1  A     AMDGPU Agent (GPUID 35090) gfx90a       AMD Instinct MI210 416   3328    0000:4a:00.0",
			gdbLine{kind: glAgent, agent: GPUAgent{ID: 1, GPUID: "35090", Arch: "gfx90a", Name: "AMD Instinct MI210", Location: "0000:4a:00.0"}}},
		{"fx05 queue", "* 2    AMDGPU Queue 1:2 (QID 1) HSA          0      2      1048576  0x00007fffe5800000",
			gdbLine{kind: glQueue, queue: queueRow{id: "1:2", typ: "HSA", qid: "1", read: "0", write: "2"}}},
		{"ROCgdb#42 dispatch", "* 1    AMDGPU Dispatch 1:1:1 (PKID 1) [1,1,1] [1,1,1]   B|Aa|Ra single_wave_kernel1()",
			gdbLine{kind: glDispatch, disp: dispatchRow{target: "1:1:1 PKID 1", kernel: "single_wave_kernel1()", fence: "B|Aa|Ra", id: "1:1:1", queue: "1:1", pkid: "1", grid: "[1,1,1]", workgroup: "[1,1,1]"}}},
		{"llvm#170211 lane switch", "[Switching to thread 6, lane 0 (AMDGPU Lane 1:1:1:8/0 (0,0,0)[224,0,0])]", gdbLine{kind: glLaneSwitch, wave: "1:1:1:8", workgroup: "0,0,0"}},
		{"fx05 lane", "* 0    A     AMDGPU Lane 1:2:1:1/0 (0,0,0)[0,0,0] kern () at /home/user/saxpy.cpp:7",
			gdbLine{kind: glLane, lane: laneRow{wave: "1:2:1:1", workgroup: "0,0,0", x: 0, frame: "kern () at /home/user/saxpy.cpp:7"}}},
		{"fx05 threads row", `* 7    AMDGPU Wave 1:2:1:1 (0,0,0)/0 "saxpy"      kern () at /home/user/saxpy.cpp:7`,
			gdbLine{kind: glWaveRow, wave: "1:2:1:1", workgroup: "0,0,0", frame: "kern () at /home/user/saxpy.cpp:7"}},
		{"wave bt header", `Thread 7 (AMDGPU Wave 1:2:1:1 (0,0,0)/0 "saxpy"):`, gdbLine{kind: glWaveBT, wave: "1:2:1:1", workgroup: "0,0,0"}},
		{"fx05 frame", "#1  0x00007ffff608ee40 in kern () at /home/user/saxpy.cpp:4", gdbLine{kind: glFrame, frameNo: "1", frame: "0x00007ffff608ee40 in kern () at /home/user/saxpy.cpp:4"}},
		{"main thread", `Thread 1 (Thread 0x7ffff7e8b740 (LWP 2920) "python3"):`, gdbLine{kind: glHostThread, main: true}},
		{"other host thread", `Thread 3 (Thread 0x7fffe37fe640 (LWP 2931) "python3"):`, gdbLine{kind: glHostThread}},
		{"fx05 stop banner", `Thread 68 "rocke_eleme-2920" received signal SIGSEGV, Segmentation fault.`, gdbLine{}},
	} {
		if got := extractGdbDumpLine(c.line); got != c.want {
			t.Errorf("%s: got %+v", c.src, got)
		}
	}
}

// gdb's "[Inferior N (process P) detached]" names the pid of the dump just
// read when no attach line did (crash-heldout2 d06: a ROCm 5.4 -batch log);
// the fork-follow detach before any table (gdb sessions quoted in public
// write-ups: "[Detaching after fork from parent process 619857]" /
// "[Inferior 1 (process 619857) detached]") names nothing.
func TestGdbDetachNamesTheDumpedPid(t *testing.T) {
	if r := extractGdbDumpLine("[Inferior 1 (process 398235) detached]"); r.kind != glDetach || r.pid != 398235 {
		t.Errorf("detach line: %+v", r)
	}
	if r := extractGdbDumpLine("[Inferior 1 (Remote target) detached]"); r.kind == glDetach {
		t.Errorf("a remote target has no pid: %+v", r)
	}
	dump := "=== info dispatches ===\n" +
		"  Id   Target Id                          Grid        Workgroup  Fence   Kernel Function\n" +
		"* 1    AMDGPU Dispatch 1:1:1 (PKID 88140) [14336,1,1] [256,1,1]  B|Aa|Ra ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)\n"
	d := diagnoseWhole("hang.txt", []byte(dump+"[Inferior 1 (process 18840) detached]\n"))
	if f := hasClass(d, ClassGPUKernelHang); f == nil || f.PID == nil || *f.PID != 18840 {
		t.Errorf("detach pid not taken:\n%s", d.JSON())
	}
	d = diagnoseWhole("fork.txt", []byte("[Detaching after fork from parent process 619857]\n[Inferior 1 (process 619857) detached]\n"+dump))
	if f := hasClass(d, ClassGPUKernelHang); f == nil || f.PID != nil && *f.PID == 619857 {
		t.Errorf("fork-follow detach taken for the dumped pid:\n%s", d.JSON())
	}
}

// rocgdb -i=mi prints agents / queues / dispatches as result records
// (crash-formats.md §7.2: "^done,agents=[{id="1.1",state="A",target-id=
// "AMDGPU Agent (GPUID 35090)",architecture="gfx942",…}]", queues with
// read/write, dispatches with kernel-function; ROCm/ROCgdb#42's
// info-dispatches tests): the same facts as the tables, so a single MI dump
// with an in-flight dispatch and a queue whose write is ahead is a hang.
func TestExtractMIRecord(t *testing.T) {
	rs := extractMIRecord(`^done,dispatches=[{id="1.1",target-id="AMDGPU Dispatch 1:1:7 (PKID 5)",grid="[304,1,1]",workgroup="[256,1,1]",fence="B|Aa|Ra",kernel-function="void at::native::index_elementwise_kernel<128, 4, {lambda(int)#1}>(long)"},{id="1.2",target-id="AMDGPU Dispatch 1:2:9 (PKID 1)",grid="[8,1,1]",workgroup="[64,1,1]",fence="B",kernel-function="k2()"}]`)
	if len(rs) != 2 || rs[0].kind != glDispatch || rs[0].disp.id != "1:1:7" || rs[0].disp.pkid != "5" || !strings.Contains(rs[0].disp.kernel, "{lambda(int)#1}") || rs[1].disp.kernel != "k2()" {
		t.Fatalf("dispatches: %+v", rs)
	}
	rs = extractMIRecord(`^done,queues=[{id="1.1",target-id="AMDGPU Queue 1:1 (QID 0)",type="HSA",read="11524",write="11527",size="262144",addr="0x00007f9a30400000"}]`)
	if len(rs) != 1 || rs[0].queue.id != "1:1" || rs[0].queue.read != "11524" || rs[0].queue.write != "11527" {
		t.Fatalf("queues: %+v", rs)
	}
	rs = extractMIRecord(`^done,agents=[{id="1.1",state="A",target-id="AMDGPU Agent (GPUID 35090)",architecture="gfx942",name="MI300X",cores="304",threads="19456",location="0000:01:00.0"}]`)
	if len(rs) != 1 || rs[0].agent.Arch != "gfx942" || rs[0].agent.Location != "0000:01:00.0" || rs[0].agent.ID != 1 {
		t.Fatalf("agents: %+v", rs)
	}
	if rs = extractMIRecord(`^done,dispatches=[]`); len(rs) != 1 || rs[0].kind != glNoActive || rs[0].sec != secDispatches {
		t.Fatalf("no dispatches: %+v", rs)
	}
	if rs = extractMIRecord(`=thread-group-started,id="i1",pid="61877"`); len(rs) != 1 || rs[0].pid != 61877 {
		t.Fatalf("attach: %+v", rs)
	}
	if rs = extractMIRecord(`^done,stack=[frame={level="0",func="hipStreamSynchronize"}]`); rs != nil {
		t.Fatalf("stack read as a table: %+v", rs)
	}
	log := "=thread-group-started,id=\"i1\",pid=\"61877\"\n(gdb)\n" +
		`^done,queues=[{id="1.1",target-id="AMDGPU Queue 1:1 (QID 0)",type="HSA",read="11524",write="11527",size="262144",addr="0x00007f9a30400000"}]` + "\n(gdb)\n" +
		`^done,dispatches=[{id="1.1",target-id="AMDGPU Dispatch 1:1:11525 (PKID 11524)",grid="[1216,1,1]",workgroup="[64,1,1]",fence="B|As|Rs",kernel-function="void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 4>(int, int, int)"}]` + "\n"
	d := diagnoseWhole("rocgdb_mi.txt", []byte(log))
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || !strings.Contains(f.Kernel, "wvSplitK_hf_sml_") || f.PID == nil || *f.PID != 61877 {
		t.Fatalf("MI dump not read as a hang: %s", d.JSON())
	}
}

// One file holding the dumps of several workers under per-pid banners:
// each dump is its worker's, so the worker outside the collective is named
// (without the banners the dumps would be one process whose dispatch ids
// change: progress, no hang).
func TestBannerPIDSeparatesWorkers(t *testing.T) {
	var b strings.Builder
	for snap := 0; snap < 2; snap++ {
		for i, pid := range []string{"61010", "61011", "61012"} {
			b.WriteString("===== snapshot " + string(rune('1'+snap)) + " TP" + string(rune('0'+i)) + " pid " + pid + " =====\n=== info dispatches ===\n")
			b.WriteString("  Id Target Id                            Grid         Workgroup Fence   Kernel Function\n")
			if i == 2 {
				b.WriteString("* 1  AMDGPU Dispatch 3:1:5512 (PKID 877) [3584,16,1] [256,1,1] B|Aa|Ra fused_moe_kernel\n\n")
			} else {
				b.WriteString("* 1  AMDGPU Dispatch " + string(rune('1'+i)) + ":3:2040" + string(rune('0'+i)) + " (PKID 13" + string(rune('0'+i)) + ") [32,1,1] [256,1,1] B|As|Rs ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)\n\n")
			}
		}
	}
	d := diagnoseWhole("dumps.txt", []byte(b.String()))
	f := hasClass(d, ClassGPUKernelHang)
	if f == nil || culpritPID(f) != 61012 {
		t.Fatalf("%s", d.JSON())
	}
}
