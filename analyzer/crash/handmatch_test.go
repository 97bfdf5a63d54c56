package crash

import "testing"

// FuzzAssertLine checks matchAssertLine against reAssertLine.
func FuzzAssertLine(f *testing.F) {
	f.Add("/x/Indexing.cu:1141: indexFuncLargeIndex: block: [5,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.")
	f.Add("a:1: b::c::d: block: [1,2,3], thread: [4,5,6] Assertion `x` failed` failed")
	f.Add("a:1: b:1: c: block: [1,2,3], thread: [4,5,6] Assertion `x` failed")
	f.Add("a:x: b:1: c:::d: block: [1,2,3], thread: [4,5,6] Assertion ``` failed")
	f.Add("`/x/ClassNLLCriterion.cu:101: void k(int) [with Dtype = float]: block: [0,0,0], thread: [2,0,0] Assertion t >= 0 && t < n_classes failed.`")
	f.Add("a:1: b: block: [1,2,3], thread: [4,5,6] Assertion  failed")
	f.Add("a:1: b: block: [1,2,3], thread: [4,5,6] Assertion `` failed")
	f.Add("a:1: b: block: [1,2,3], thread: [4,5,6] Assertion `x failed")
	f.Fuzz(func(t *testing.T, s string) {
		want, wok := assertLineRE(s)
		got, ok := matchAssertLine(s)
		if wok != ok {
			t.Fatalf("%q: regexp %v, hand %v", s, wok, ok)
		}
		if ok {
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("%q: group %d: regexp %q, hand %q", s, i, want[i], got[i])
				}
			}
		}
	})
}

// FuzzHandMatchers checks the hand-written matchers of the line prefixes
// and of clr/normalize against the regular expressions they replace.
func FuzzHandMatchers(f *testing.F) {
	for _, s := range []string{
		"[ 4778.915423] usb", "[  12.5]x", "[2025-08-02 19:24:23 TP3] x", "[2026-01-29 13:12:37.123 PP2 TP1]y", "[<timestamp> TP1] z", "[2025-08-02T19:24:23,5]\tq",
		"(Worker_TP2 pid=3100) INFO", "(VllmWorker TP1 pid=22110) ERROR", "(VllmWorker TP0_EP0 rank=4 pid=7) x", "(A TP1.5 pid=1)", "(A TP pid=", "(EngineCore_DP0 rank=3 pid=1127182, ip=10.0.0.1) x", "(a pid=1, ip=)",
		":3:hip_module.cpp           :669 : 14629861952 us: [pid:31113 tid:0x7fa5a37fe700] hipLaunchKernel: Returned hipErrorInvalidDeviceFunction :",
		":0:rocdevice.cpp            :2614: 281102691423 us: 54282: [tid:0x7ff1f9c47700] Device::callbackQueue", ":1:a.b:1:2 us:",
		"ollama  | Memory", "web-1\t| x", "Worker_TP12", "xrank7_TP3",
		"hipLaunchKernel: Returned hipSuccess : ", "x hipLaunchKernel ( 0x7fa9706d5550, {57,1,1}, {256,1,1}, 0x7fa5a37fc9a0, 0, stream:<null> )",
		"hipLaunchKernel (0x12, {1,2,3}, {4,5,6}, , 7", "hipLaunchKernel (0xzz,, {1,2,3}, {4,5,6}, a, 7 hipLaunchKernel ( f, {1,1,1}, {1,1,1}, s, 0", "x : Returned hipA b: Returned hipErrorX", "Got 2025-12-21T05:01:45.677513 - error text",
		"100%|████| 20/20 [00:01<00:00, 17.95it/s]Memory", "\\u001b[0m x \x1b[1m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, m := matchDmesg(s), reDmesg.FindStringIndex(s); (m == nil) != (n == 0) || m != nil && m[1] != n {
			t.Fatalf("dmesg %q: %v %d", s, m, n)
		}
		if n, ts, te := matchSGLang(s); true {
			m := reSGLang.FindStringSubmatchIndex(s)
			if (m == nil) != (n == 0) || m != nil && (m[1] != n || m[2] != ts || m[3] != te) {
				t.Fatalf("sglang %q: %v %d %d %d", s, m, n, ts, te)
			}
		}
		if h, ok := matchWorker(s); true {
			m := reWorker.FindStringSubmatchIndex(s)
			if (m == nil) == ok || ok && [8]int(m) != h {
				t.Fatalf("worker %q: %v %v", s, m, h)
			}
		}
		if h, ok := matchHIPTrace(s); true {
			m := reHIPTrace.FindStringSubmatchIndex(s)
			if (m == nil) == ok || ok && [8]int(m) != h {
				t.Fatalf("hip %q: %v %v", s, m, h)
			}
		}
		if n, ne := matchCompose(s); true {
			m := reCompose.FindStringSubmatchIndex(s)
			if (m == nil) != (n == 0) || m != nil && (m[1] != n || m[3] != ne) {
				t.Fatalf("compose %q: %v %d %d", s, m, n, ne)
			}
		}
		if g, ok := tpNumber(s); true {
			m := reTPName.FindStringSubmatch(s)
			if (m == nil) == ok || ok && m[1] != g {
				t.Fatalf("tp %q: %v %q", s, m, g)
			}
		}
		if a, n, ok := findReturned(s); true {
			m := reReturned.FindStringSubmatch(s)
			if (m == nil) == ok || ok && (m[1] != a || m[2] != n) {
				t.Fatalf("returned %q: %v %q %q", s, m, a, n)
			}
		}
		if h, ok := matchHipLaunch(s); true {
			m := reHipLaunch.FindStringSubmatch(s)
			if (m == nil) == ok || ok && [9]string(m) != h {
				t.Fatalf("hipLaunch %q: %q %q", s, m, h)
			}
		}
		if hasComfyStamp(s) != reComfyStamp.MatchString(s) {
			t.Fatalf("comfy %q", s)
		}
		if !rewriteChanges(s) && rewriteRaw(s) != s {
			t.Fatalf("rewrite %q", s)
		}
		if kwScanString(s)&kwSpecial == 0 && rewriteChanges(s) {
			t.Fatalf("special %q", s)
		}
	})
}
