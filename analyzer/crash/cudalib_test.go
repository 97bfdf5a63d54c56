package crash

import (
	"strings"
	"testing"
)

// cuBLAS / cuDNN execution failures as frameworks print them, each from a
// different public thread.
func TestLibExecFailed(t *testing.T) {
	cases := []struct {
		src, text string
		want      bool
	}{
		{"https://github.com/isl-org/DPT/issues/4", "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`", true},
		{"https://github.com/microsoft/CNTK/issues/379", "CUBLAS failure 13: CUBLAS_STATUS_EXECUTION_FAILED ; GPU=1 ; hostname=rg404.bbn.com ; expr=cublas_gemm(cuHandle, CUBLAS_OP_N, CUBLAS_OP_N, (int) ARows, 1, (int) ACols, &alpha, a.Data()+ offsets[0], (int) ALd, GetOnesVector<ElemType>(ACols, a.GetComputeDeviceId())->Data(), (int) ACols, &beta, Data()+ offsets[1], (int) ARows)", true},
		{"https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/193", "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`", true},
		{"https://github.com/QingyongHu/SensatUrban/issues/25", "failed to run cuBLAS routine cublasSgemm_v2: CUBLAS_STATUS_EXECUTION_FAILED", true},
		{"https://github.com/pytorch/examples/issues/729", "> cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", true},
		{"https://github.com/PaddlePaddle/PaddleSeg/issues/159", "Error: CUDNN_STATUS_EXECUTION_FAILED at (/paddle/paddle/fluid/operators/conv_cudnn_op.cu:288)", true},
		{"https://github.com/mjq11302010044/TATT/issues/18", "'RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED' occurred after several training epoches.", true},
		{"https://github.com/microsoft/CNTK/issues/2847", "cuDNN failure 8: CUDNN_STATUS_EXECUTION_FAILED when training model", true},
		// allocation failures: device memory exhausted (VRAM OOM)
		{"https://github.com/DeepMotionAIResearch/DenseMatchingBenchmark/issues/20", "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", true},
		{"https://github.com/tensorflow/tensorflow/issues/7072", `E c:\tf_jenkins\home\workspace\release-win\device\gpu\os\windows\tensorflow\stream_executor\cuda\cuda_blas.cc:372] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED`, true},
		{"https://github.com/microsoft/CNTK/issues/1688", ">RuntimeError: CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=0 ; ", true},
		{"https://github.com/QwenLM/Qwen3/issues/873", "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", true},
		// another status, a command line: not this fact
		{"cuBLAS docs", "CUBLAS_STATUS_NOT_INITIALIZED", false},
		// glog's check names SUCCESS first (BVLC/caffe#1026: cuRAND)
		{"https://github.com/msracver/Deep-Image-Analogy/issues/3", "F0525 12:35:32.850440 182776 cudnn_conv_layer.cu:28] Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0)  CUDNN_STATUS_EXECUTION_FAILED", true},
		{"a grep", "$ grep -n CUBLAS_STATUS_EXECUTION_FAILED train.log", false},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		got := false
		for _, f := range d.Findings {
			want := ClassGPUMemoryFault
			if strings.HasSuffix(f.Details["library_status"], "_ALLOC_FAILED") {
				want = ClassVRAMOOM
			}
			if f.Class == want && f.Details["library_status"] != "" {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%s: %q: library execution failure = %v, want %v (%v)", c.src, c.text, got, c.want, classesOf(d))
		}
	}
}

// Every library catalog (cudalib.go): names unique and of their library's
// prefix, every class explained; real lines of the statuses beyond
// EXECUTION_FAILED / ALLOC_FAILED, each from a public thread.
func TestLibStatusCatalog(t *testing.T) {
	seen := map[string]bool{}
	per := map[string][2]int{}
	for _, x := range libStatuses {
		if seen[x.status] {
			t.Errorf("%s twice", x.status)
		}
		seen[x.status] = true
		ok := false
		for _, p := range libStatusPrefixes {
			ok = ok || strings.HasPrefix(x.status, p)
		}
		if !ok || x.why == "" || (x.class != "") != (x.conf > 0) {
			t.Errorf("%+v", x)
		}
		n := per[x.library]
		n[0]++
		if x.class != "" {
			n[1]++
		}
		per[x.library] = n
	}
	t.Logf("rows / with a class per library: %v", per)

	cases := []struct{ src, text, want, status string }{
		{"https://github.com/BVLC/caffe/issues/1026", "F0902 13:30:41.691910  7302 math_functions.cu:359] Check failed: status == CURAND_STATUS_SUCCESS (102 vs. 0)  CURAND_STATUS_ALLOCATION_FAILED", ClassVRAMOOM, "CURAND_STATUS_ALLOCATION_FAILED"},
		{"https://github.com/cupy/cupy/issues/1063", "cupy.cuda.cufft.CuFftError: CUFFT_ALLOC_FAILED", ClassVRAMOOM, "CUFFT_ALLOC_FAILED"},
		{"https://github.com/torch/torch7/issues/780", "/home/usrname/torch/install/share/lua/5.1/cudnn/init.lua:118: Error in CuDNN: CUDNN_STATUS_ALLOC_FAILED (cudnnFindConvolutionForwardAlgorithm)", ClassVRAMOOM, "CUDNN_STATUS_ALLOC_FAILED"},
		{"https://github.com/kbardool/Keras-frcnn/issues/97", "Could not create cudnn handle: CUDNN_STATUS_ALLOC_FAILED", ClassVRAMOOM, "CUDNN_STATUS_ALLOC_FAILED"},
		{"https://github.com/tensorflow/tensorflow/issues/44291", "2020-11-17 19:56:29.679590: E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED", ClassVRAMOOM, "CUBLAS_STATUS_ALLOC_FAILED"},
		{"https://github.com/CMU-Perceptual-Computing-Lab/openpose/issues/681", "F0628 13:44:06.798274 24168 cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (6 vs. 0)  CUDNN_STATUS_ARCH_MISMATCH", ClassArchMismatch, "CUDNN_STATUS_ARCH_MISMATCH"},
		{"https://github.com/hyseob/PyMDNet/issues/6", "RuntimeError: CUDNN_STATUS_ARCH_MISMATCH", ClassArchMismatch, "CUDNN_STATUS_ARCH_MISMATCH"},
		{"https://github.com/nagadomi/waifu2x/issues/176", "> /home/zhixin/torch/install/share/lua/5.1/cudnn/init.lua:145: Error in CuDNN: CUDNN_STATUS_ARCH_MISMATCH", ClassArchMismatch, "CUDNN_STATUS_ARCH_MISMATCH"},
		{"https://github.com/NVIDIA/DeepLearningExamples/issues/147", "  what():  [FT][ERROR] CUDA runtime error: CUBLAS_STATUS_ARCH_MISMATCH /workspace/tf_case/FasterTransformer/fastertransformer/cuda/open_attention.h:171 ", ClassArchMismatch, "CUBLAS_STATUS_ARCH_MISMATCH"},
		{"https://github.com/AlexeyAB/darknet/issues/4921", " cuDNN Error: CUDNN_STATUS_EXECUTION_FAILED", ClassGPUMemoryFault, "CUDNN_STATUS_EXECUTION_FAILED"},
		{"https://github.com/Theano/libgpuarray/issues/500", "runtimeError: error doing operation:CUDNN_STATUS_EXECUTION_FAILED", ClassGPUMemoryFault, "CUDNN_STATUS_EXECUTION_FAILED"},
		// cuDNN's "an access to GPU memory space failed"
		{"https://github.com/daitao/SAN/issues/43", "RuntimeError: CUDNN_STATUS_MAPPING_ERROR", ClassGPUMemoryFault, "CUDNN_STATUS_MAPPING_ERROR"},
		{"https://github.com/gpgpu-sim/pytorch-gpgpu-sim/issues/11", "RuntimeError: CuDNN error: CUDNN_STATUS_MAPPING_ERROR", ClassGPUMemoryFault, "CUDNN_STATUS_MAPPING_ERROR"},
		{"https://github.com/lllyasviel/Fooocus/issues/3275", "RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR", ClassGPUMemoryFault, "CUDNN_STATUS_MAPPING_ERROR"},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		ok := false
		for _, f := range d.Findings {
			if f.Class == c.want && f.Details["library_status"] == c.status {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s\n%s\n got %v, want %s %s", c.src, c.text, classesOf(d), c.want, c.status)
		}
	}
	// consequences and refusals decide nothing (rbgirshick/py-faster-rcnn#748,
	// a cuFFT internal error, a grep)
	for _, s := range []string{
		"F1217 08:19:28.327307  6021 cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)  CUDNN_STATUS_INTERNAL_ERROR",
		"RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR",
		"RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
		"$ grep CUDNN_STATUS_ARCH_MISMATCH log.txt",
	} {
		d := diagnoseWhole("x.log", []byte(s+"\n"))
		for _, f := range d.Findings {
			if f.Details["library_status"] != "" {
				t.Errorf("%q gave %s %v", s, f.Class, f.Details)
			}
		}
	}
}

// TensorFlow's handle-creation failures: the card was reserved at start,
// the library found no memory for its handle (the threads' fix is memory
// growth) — a less sure VRAM OOM; the same status elsewhere decides nothing.
func TestTFHandleFailure(t *testing.T) {
	for _, c := range []struct{ src, text string }{
		{"https://github.com/tony-framework/TonY/pull/486 (TF 2.3.1, T4)", "2020-11-25 09:06:12.391615: E tensorflow/stream_executor/cuda/cuda_dnn.cc:328] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"},
		{"https://github.com/tensorflow/tensorflow/issues/29632 (title)", "TF2.0 beta on RTX 2080 throws Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"},
		{"https://github.com/tensorflow/tensorflow/issues/30912", "2019-07-21 23:23:06.224853: E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED"},
	} {
		d := diagnoseWhole("tf.log", []byte(c.text+"\n"))
		if f := hasClass(d, ClassVRAMOOM); f == nil || f.Confidence > 0.6 {
			t.Errorf("%s: %v", c.src, classesOf(d))
		}
	}
	d := diagnoseWhole("run.log", []byte("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n"))
	if hasClass(d, ClassVRAMOOM) != nil {
		t.Errorf("a bare internal error: %v", classesOf(d))
	}
}

// A cuDNN handle XLA / TensorFlow could not create, followed by the stream
// executor's report of the device's memory: mostly free is no OOM (a cuDNN
// the driver or framework does not match), little free keeps vram_oom.
func TestDNNHandleMemoryUsage(t *testing.T) {
	cases := []struct {
		src, text string
		oom       bool
	}{
		{"https://github.com/jax-ml/jax/issues/25658 (7.4 of 8.6 GB free)",
			"E1222 23:00:20.145007      21 cuda_dnn.cc:534] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\nE1222 23:00:20.145107      21 cuda_dnn.cc:538] Memory usage: 7438598144 bytes free, 8589410304 bytes total.", false},
		{"https://github.com/jax-ml/jax/issues/23145 (46.6 of 47.6 GB free)",
			"2024-08-20 16:26:58.037892: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n2024-08-20 16:26:58.037952: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:443] Memory usage: 46637514752 bytes free, 47587131392 bytes total.", false},
		{"https://github.com/jax-ml/jax/issues/16078 (0.7 of 4.2 GB free)",
			"2023-05-20 20:08:18.894443: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n2023-05-20 20:08:18.894540: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:443] Memory usage: 707198976 bytes free, 4231397376 bytes total.", true},
		{"https://github.com/jax-ml/jax/issues/15774 (no report after it)",
			"2023-04-27 18:06:04.839079: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:429] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR", true},
	}
	for _, c := range cases {
		d := diagnoseWhole("x.log", []byte(c.text+"\n"))
		if got := hasClass(d, ClassVRAMOOM) != nil; got != c.oom {
			t.Errorf("%s: vram_oom %v, want %v (%v)", c.src, got, c.oom, classesOf(d))
		}
	}
	if _, ok := extractDNNMemUsage("Memory usage: 9 bytes free, 8 bytes total."); ok {
		t.Error("more free than total read as a report")
	}
}
