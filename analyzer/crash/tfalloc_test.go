package crash

import "testing"

// TensorFlow's StreamExecutor reports a device allocation the driver
// refused, on CUDA and on ROCm, in one wording (with or without the
// driver's ": out of memory" text).
func TestExtractTFDeviceAlloc(t *testing.T) {
	for _, c := range []struct {
		src, text, bytes string
		want             bool
	}{
		{"https://github.com/tensorflow/tensorflow/issues/12237", "2017-08-12 08:25:14.841699: E tensorflow/stream_executor/cuda/cuda_driver.cc:924] failed to allocate 90.48M (94873600 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY", "94873600 bytes", true},
		{"https://github.com/tensorflow/tensorflow/issues/30912", "2019-07-21 23:23:06.228049: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory", "33554432 bytes", true},
		{"https://github.com/ymgaq/AQ/issues/91", `2018-03-14 11:33:52.456418: E c:\users\u\bin\tensorflow\tensorflow\stream_executor\cuda\cuda_driver.cc:924] failed to allocate 968.17M (1015196672 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY`, "1015196672 bytes", true},
		{"https://github.com/keras-team/keras/issues/13889 (title)", "E tensorflow/stream_executor/rocm/rocm_driver.cc:600] failed to allocate 890.06M (933298432 bytes) from device: HIP_ERROR_OutOfMemory", "933298432 bytes", true},
		// the early ROCm ports: HIP's first numbering, 1002 = hipErrorMemoryAllocation
		{"https://github.com/ROCm/tensorflow-upstream/issues/82", "2019-01-08 19:06:11.303639: E tensorflow/stream_executor/rocm/rocm_driver.cc:601] failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1002)", "7889485824 bytes", true},
		{"https://github.com/ROCmSoftwarePlatform/hiptensorflow/issues/62 (title, no byte count)", "mnist.py: failed to allocate 8.00G from device: hipError_t(1002)", "8.00G", true},
		{"another HIP status by number is no OOM", "E tensorflow/stream_executor/rocm/rocm_driver.cc:601] failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1001)", "", false},
		// host allocations and other driver errors are not device OOM
		{"host pinned memory", "E tensorflow/stream_executor/cuda/cuda_driver.cc:1000] failed to alloc 8589934592 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory", "", false},
		{"prose", "if you see 'failed to allocate from device', lower the batch size", "", false},
	} {
		x, ok := extractTFDeviceAlloc(c.text)
		if ok != c.want || x.bytes != c.bytes {
			t.Errorf("%s: extractTFDeviceAlloc(%q) = %+v, %v", c.src, c.text, x, ok)
		}
		if c.want && hasClass(diagnoseWhole("tf.log", []byte(c.text+"\n")), ClassVRAMOOM) == nil {
			t.Errorf("%s: no vram_oom for %q", c.src, c.text)
		}
	}
}
