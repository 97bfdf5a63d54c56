package crash

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func TestDegarble(t *testing.T) {
	clean := "void aiter::fmha_fwd_kernel<128>(aiter::Args)"
	known := []string{clean, "transpose", "at::native::index_copy_kernel"}
	for in, want := range map[string]string{
		"void aitvoid aiter::fmer::fmha_fwd_kernel<128>(aiter::Args)ha_fwd_kernel<128>(aiter::Args)": clean,
		"transpose_kernel": "transpose_kernel", // a longer name, not a splice
		clean:              clean,
		"rms_norm":         "rms_norm",
	} {
		if got := degarble(in, known); got != want {
			t.Errorf("degarble(%q) = %q, want %q", in, got, want)
		}
	}
	// a wave dump whose header name was spliced by two writers
	log := "--------------------------------------------------------\n" +
		"wave_3: pc=0x7f1c2d4a1044 (kernel_code_entry=0x7f1c2d4a0f00 <void aitvoid aiter::fmer::fmha_fwd_kernel<128>(aiter::Args)ha_fwd_kernel<128>(aiter::Args)>, kernargs=0x7f1b00000000) (stopped, reason: MEMORY_VIOLATION)\n" +
		"wave_4: pc=0x7f1c2d4a1044 (kernel_code_entry=0x7f1c2d4a0f00 <void aiter::fmha_fwd_kernel<128>(aiter::Args)>, kernargs=0x7f1b00000000) (stopped, reason: MEMORY_VIOLATION)\n"
	d := diagnoseWhole("interleaved.log", []byte(log))
	f := hasClass(d, ClassGPUMemoryFault)
	if f == nil || f.Kernel != clean || len(f.Kernels) > 1 {
		t.Fatalf("%s", d.JSON())
	}
}

// interleaveWriters splices the streams of n writers by chunks of 1–maxChunk
// bytes, as unbuffered writes from n processes to one pipe do.
func interleaveWriters(streams []string, maxChunk int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	pos := make([]int, len(streams))
	var b strings.Builder
	for {
		var live []int
		for i, s := range streams {
			if pos[i] < len(s) {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			return b.String()
		}
		i := live[r.Intn(len(live))]
		n := min(1+r.Intn(maxChunk), len(streams[i])-pos[i])
		b.WriteString(streams[i][pos[i] : pos[i]+n])
		pos[i] += n
	}
}

// No copy of the name is clean: assembleNames reads it from all copies.
// The names are real kernel names (a PyTorch index kernel whose argument
// list repeats, an aiter/CK attention kernel, a rocBLAS/Tensile kernel),
// each written by 6–8 processes (a node's ranks) in random chunks of up to
// 96 bytes. The rule is a majority over copies, so it needs several copies
// of each stretch of the name intact: measured 18 of 36 here (and fewer
// with 2–5 writers, where a stretch often survives in one copy only — an
// overlap assembly of the fragments would be the next step). The test
// guards that rate and that a clean dump gives exactly its name.
func TestAssembleInterleavedNames(t *testing.T) {
	names := []string{
		"void at::native::index_elementwise_kernel<128, 4, at::native::index_put_kernel_impl<at::native::OpaqueType<2> >(at::TensorIterator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(int)#1}>(long, at::native::index_put_kernel_impl<at::native::OpaqueType<2> >(at::TensorIterator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(int)#1})",
		"void ck_tile::kentry<256, 2, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::BlockFmhaPipelineProblem<unsigned short, unsigned short> > > >(ck_tile::FmhaFwdKernel::Kargs)",
		"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0",
	}
	ok, n := 0, 0
	for _, name := range names {
		for writers := 6; writers <= 8; writers++ {
			for seed := int64(1); seed <= 4; seed++ {
				var streams []string
				for w := 0; w < writers; w++ {
					streams = append(streams, fmt.Sprintf("--------------------------------------------------------\n"+
						"wave_%d: pc=0x7f%02xf5e534c4 (kernel_code_entry=0x7f%02xf5e52900 <%s>, kernargs=0x7ee%d00000000) (stopped, reason: ASSERT_TRAP)\n\n"+
						"general registers:\n            pc: 00007f%02xf5e534c4          exec: 0000000000000001\n\n",
						1000+37*w, 0x20+w, 0x20+w, name, w, 0x20+w))
				}
				n++
				if got := assembleNames(interleaveWriters(streams, 96, seed)); len(got) == 1 && got[0] == name {
					ok++
				}
				// the same dumps written one after another: exactly the name
				if got := assembleNames(strings.Join(streams, "")); len(got) != 1 || got[0] != name {
					t.Errorf("clean dump of %d writers: got %q", writers, got)
				}
			}
		}
	}
	t.Logf("interleaved names recovered: %d of %d", ok, n)
	if ok*2 < n {
		t.Errorf("interleaved names recovered: %d of %d, want at least half", ok, n)
	}
}
