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
