package crash

import "testing"

// ONNX Runtime's arena and TensorFlow 1.x's BFC allocator
// report a device allocation they could not satisfy in their own words:
// vram_oom with the request; TensorFlow 2's "not a failure" warning and a
// host allocator are none.
func TestExtractFrameworkAlloc(t *testing.T) {
	for _, c := range []struct {
		src, text, alloc, bytes string
		want                    bool
	}{
		{"https://github.com/microsoft/onnxruntime/issues/16307", "Non-zero status code returned while running ReduceSum node. onnxruntime::BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer of size 939524096", "ONNX Runtime BFCArena", "939524096 bytes", true},
		{"https://github.com/microsoft/onnxruntime/issues/22702", "/onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:376 void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for requested buffer of size 4585490524328388608", "ONNX Runtime BFCArena", "4585490524328388608 bytes", true},
		{"https://github.com/endernewton/tf-faster-rcnn/issues/7 (title)", "tensorflow/core/common_runtime/bfc_allocator.cc:275] Ran out of memory trying to allocate 392.00MiB. See logs for memory state.", "TensorFlow BFC allocator", "392.00MiB", true},
		{"https://github.com/udacity/CarND-Alexnet-Feature-Extraction/issues/7 (title)", `"tensorflow/core/common_runtime/bfc_allocator.cc:275] Ran out of memory trying to allocate 144.00MiB. See logs for memory state."`, "TensorFlow BFC allocator", "144.00MiB", true},
		// TensorFlow 2's retry warning: a run goes on after it
		{"https://github.com/tensorflow/tensorflow/issues/43546", "2020-09-24 21:35:23.363348: W tensorflow/core/common_runtime/bfc_allocator.cc:246] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.02GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.", "", "", false},
		{"https://github.com/talmolab/sleap/issues/2089", "2025-01-22 11:18:38.927063: W tensorflow/core/common_runtime/bfc_allocator.cc:275] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.02GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.", "", "", false},
		// Kokkos 4's BadAlloc (core/src/impl/Kokkos_Error.cpp: "Kokkos ERROR: <space> memory space failed to allocate <size> (label=…)")
		{"https://github.com/kokkos/kokkos/issues/7561 (MI300A CI)", `5: C++ exception with description "Kokkos ERROR: HIP memory space failed to allocate 4 GiB (label="v")." thrown in the test body.`, "Kokkos HIP memory space", "4 GiB", true},
		{"an ArborX scaling run on MI250X (public notes)", `passes the guard then Kokkos ERROR: HIP memory space failed to allocate 33.47 GiB (label="ArborX::BVH::internal_nodes")`, "Kokkos HIP memory space", "33.47 GiB", true},
		{"a LAMMPS/Kokkos run on A100 (public job notes)", `what():  Kokkos ERROR: Cuda memory space failed to allocate 4.883 GiB (label="lb send data").`, "Kokkos Cuda memory space", "4.883 GiB", true},
		{"Kokkos host pinned space", `Kokkos ERROR: HIPHostPinned memory space failed to allocate 2 GiB (label="staging").`, "", "", false},
		// a host allocator and prose are no device OOM
		{"host allocator", "W tensorflow/core/common_runtime/bfc_allocator.cc:275] Allocator (cuda_host_bfc) ran out of memory trying to allocate 4.00GiB.  Current allocation summary follows.", "", "", false},
		{"prose", "when the GPU ran out of memory trying to allocate a batch, lower it", "", "", false},
	} {
		x, ok := extractFrameworkAlloc(c.text)
		if ok != c.want || x.allocator != c.alloc || x.bytes != c.bytes {
			t.Errorf("%s: extractFrameworkAlloc = %+v, %v", c.src, x, ok)
		}
		d := diagnoseWhole("fw.log", []byte(c.text+"\n"))
		if got := hasClass(d, ClassVRAMOOM) != nil; got != c.want {
			t.Errorf("%s: vram_oom %v, want %v: %v", c.src, got, c.want, classesOf(d))
		}
	}
}
