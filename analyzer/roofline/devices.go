package roofline

import "strings"

// Device is one GPU's roofs: dense (no structured sparsity) matrix-core
// peaks per data type in TFLOP/s and HBM bandwidth in GB/s, per device as
// PyTorch sees it (one GCD of a two-die MI250/MI250X module).
type Device struct {
	Key  string             `json:"key"`
	Name string             `json:"name"`
	Peak map[string]float64 `json:"-"` // TFLOP/s by dtype: fp64 fp32 tf32 bf16 fp16 fp8 fp4
	GBPS float64            `json:"peak_gbps"`
	// Source is the vendor datasheet every number above comes from.
	Source string `json:"source"`
}

// dtypes lists the peak keys in the order they are written.
var dtypes = []string{"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4"}

// devices holds the vendors' datasheet numbers. fp64/fp32 are the matrix
// (tensor-core) peaks where the part has them; fp32 on NVIDIA is the
// non-tensor FP32 rate (PyTorch's default matmul precision does not use
// TF32); every number is dense, i.e. half of the "with sparsity" figure.
var devices = []Device{
	// AMD Instinct MI210 datasheet (amd.com/system/files/documents/amd-instinct-mi210-brochure.pdf):
	// FP64 matrix 45.3, FP32 matrix 45.3, FP16/BF16 181.0 TFLOPs; HBM2e 1.6 TB/s.
	{Key: "MI210", Name: "AMD Instinct MI210", Peak: map[string]float64{"fp64": 45.3, "fp32": 45.3, "bf16": 181.0, "fp16": 181.0}, GBPS: 1638.4,
		Source: "AMD Instinct MI210 datasheet: FP64/FP32 matrix 45.3, FP16/BF16 181.0 TFLOPs, 1.6384 TB/s HBM2e"},
	// AMD Instinct MI250 datasheet (amd.com/system/files/documents/amd-instinct-mi200-datasheet.pdf):
	// per OAM (2 GCDs) FP64/FP32 matrix 90.5, FP16/BF16 362.1; HBM2e 3.2768 TB/s. Halved per GCD.
	{Key: "MI250", Name: "AMD Instinct MI250 (one GCD)", Peak: map[string]float64{"fp64": 45.25, "fp32": 45.25, "bf16": 181.05, "fp16": 181.05}, GBPS: 1638.4,
		Source: "AMD Instinct MI200 series datasheet, MI250 OAM: FP64/FP32 matrix 90.5, FP16/BF16 362.1 TFLOPs, 3.2768 TB/s; halved per GCD (PyTorch device)"},
	// Same datasheet, MI250X OAM: FP64/FP32 matrix 95.7, FP16/BF16 383.0; 3.2768 TB/s. Halved per GCD.
	{Key: "MI250X", Name: "AMD Instinct MI250X (one GCD)", Peak: map[string]float64{"fp64": 47.85, "fp32": 47.85, "bf16": 191.5, "fp16": 191.5}, GBPS: 1638.4,
		Source: "AMD Instinct MI200 series datasheet, MI250X OAM: FP64/FP32 matrix 95.7, FP16/BF16 383.0 TFLOPs, 3.2768 TB/s; halved per GCD (PyTorch device)"},
	// AMD Instinct MI300X datasheet (amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf).
	{Key: "MI300X", Name: "AMD Instinct MI300X", Peak: map[string]float64{"fp64": 163.4, "fp32": 163.4, "tf32": 653.7, "bf16": 1307.4, "fp16": 1307.4, "fp8": 2614.9}, GBPS: 5300,
		Source: "AMD Instinct MI300X datasheet: FP64/FP32 matrix 163.4, TF32 653.7, FP16/BF16 1307.4, FP8 2614.9 TFLOPs (dense), HBM3 5.3 TB/s"},
	// AMD Instinct MI325X datasheet (amd.com/content/dam/amd/en/documents/instinct-tech-docs/product-briefs/instinct-mi325x-datasheet.pdf).
	{Key: "MI325X", Name: "AMD Instinct MI325X", Peak: map[string]float64{"fp64": 163.4, "fp32": 163.4, "tf32": 653.7, "bf16": 1307.4, "fp16": 1307.4, "fp8": 2614.9}, GBPS: 6000,
		Source: "AMD Instinct MI325X datasheet: FP64/FP32 matrix 163.4, TF32 653.7, FP16/BF16 1307.4, FP8 2614.9 TFLOPs (dense), HBM3E 6 TB/s"},
	// AMD Instinct MI355X datasheet (amd.com/content/dam/amd/en/documents/instinct-tech-docs/product-briefs/amd-instinct-mi355x-gpu-brochure.pdf).
	{Key: "MI355X", Name: "AMD Instinct MI355X", Peak: map[string]float64{"fp64": 78.6, "fp32": 157.3, "bf16": 2516.6, "fp16": 2516.6, "fp8": 5033.2, "fp4": 10066.4}, GBPS: 8000,
		Source: "AMD Instinct MI355X datasheet: FP64 matrix 78.6, FP32 157.3, FP16/BF16 2516.6, FP8 5033.2, MXFP4 10066.4 TFLOPs (dense), HBM3E 8 TB/s"},
	// AMD Instinct MI350X: the MI355X's 256 CDNA 4 CUs at a 2.2 GHz peak
	// engine clock instead of 2.4 GHz (AMD at Hot Chips 2025; MI350X
	// datasheet: FP16/BF16 2.3, FP8 4.6, MXFP4 9.2 PFLOPs dense, FP64
	// matrix 72.1 TFLOPs, HBM3E 8 TB/s): the MI355X peaks × 2.2/2.4.
	{Key: "MI350X", Name: "AMD Instinct MI350X", Peak: map[string]float64{"fp64": 72.1, "fp32": 144.2, "bf16": 2306.9, "fp16": 2306.9, "fp8": 4613.8, "fp4": 9227.5}, GBPS: 8000,
		Source: "AMD Instinct MI350X datasheet: FP64 matrix 72.1, FP16/BF16 2.3, FP8 4.6, MXFP4 9.2 PFLOPs (dense), HBM3E 8 TB/s; 2.2 GHz peak clock vs MI355X's 2.4 GHz, same 256 CUs (MI355X peaks × 2.2/2.4)"},
	// NVIDIA A100 datasheet (nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf).
	{Key: "A100-SXM", Name: "NVIDIA A100 SXM 80GB", Peak: map[string]float64{"fp64": 19.5, "fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312}, GBPS: 2039,
		Source: "NVIDIA A100 datasheet, SXM 80GB: FP64 tensor 19.5, FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS (dense), HBM2e 2039 GB/s"},
	{Key: "A100-SXM-40GB", Name: "NVIDIA A100 SXM 40GB", Peak: map[string]float64{"fp64": 19.5, "fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312}, GBPS: 1555,
		Source: "NVIDIA A100 datasheet, 40GB: FP64 tensor 19.5, FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS (dense), HBM2 1555 GB/s"},
	{Key: "A100-PCIe", Name: "NVIDIA A100 PCIe 80GB", Peak: map[string]float64{"fp64": 19.5, "fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312}, GBPS: 1935,
		Source: "NVIDIA A100 datasheet, PCIe 80GB: FP64 tensor 19.5, FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS (dense), HBM2e 1935 GB/s"},
	// NVIDIA H100 datasheet (resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet).
	{Key: "H100-SXM", Name: "NVIDIA H100 SXM5", Peak: map[string]float64{"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9}, GBPS: 3350,
		Source: "NVIDIA H100 datasheet, SXM: FP64 tensor 66.9, FP32 66.9, TF32 494.7, BF16/FP16 989.4, FP8 1978.9 TFLOPS (dense), HBM3 3.35 TB/s"},
	{Key: "H100-PCIe", Name: "NVIDIA H100 PCIe", Peak: map[string]float64{"fp64": 51.2, "fp32": 51.2, "tf32": 378, "bf16": 756.5, "fp16": 756.5, "fp8": 1513}, GBPS: 2000,
		Source: "NVIDIA H100 datasheet, PCIe: FP64 tensor 51.2, FP32 51.2, TF32 378, BF16/FP16 756.5, FP8 1513 TFLOPS (dense), HBM2e 2 TB/s"},
	// NVIDIA H200 datasheet (nvidia.com/en-us/data-center/h200/): H100 SXM compute, HBM3e 4.8 TB/s.
	{Key: "H200", Name: "NVIDIA H200 SXM", Peak: map[string]float64{"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9}, GBPS: 4800,
		Source: "NVIDIA H200 datasheet, SXM: FP64 tensor 67, FP32 67, TF32 494.7, BF16/FP16 989.4, FP8 1978.9 TFLOPS (dense), HBM3e 4.8 TB/s"},
	// NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx/), per GPU (1/8 of the 8-GPU board), dense.
	{Key: "B200", Name: "NVIDIA B200", Peak: map[string]float64{"fp64": 37, "fp32": 75, "tf32": 1100, "bf16": 2250, "fp16": 2250, "fp8": 4500, "fp4": 9000}, GBPS: 8000,
		Source: "NVIDIA HGX B200 datasheet, per GPU: FP64 37, FP32 75, TF32 1100, BF16/FP16 2250, FP8 4500, FP4 9000 TFLOPS (dense), HBM3e 8 TB/s"},
}

func deviceByKey(k string) *Device {
	for i := range devices {
		if devices[i].Key == k {
			return &devices[i]
		}
	}
	return nil
}

// SelectDevice picks the table entry for a trace's device name, else its
// observed architecture (gfx942 → MI300X, the part most gfx942 traces come
// from; MI325X shares the ISA and must be named). basis says which.
func SelectDevice(name, observedArch string) (d *Device, basis string) {
	n := strings.ToUpper(name)
	byName := []struct{ frag, not, key string }{
		{"MI355", "", "MI355X"}, {"MI350", "", "MI350X"}, {"MI325", "", "MI325X"}, {"MI300X", "", "MI300X"},
		{"MI250X", "", "MI250X"}, {"MI250", "", "MI250"}, {"MI210", "", "MI210"},
		{"H200", "", "H200"}, {"H100 PCIE", "", "H100-PCIe"}, {"H100", "", "H100-SXM"},
		{"A100", "PCIE", "A100-SXM"}, {"B200", "", "B200"},
	}
	for _, c := range byName {
		if strings.Contains(n, c.frag) && (c.not == "" || !strings.Contains(n, c.not)) {
			key := c.key
			if key == "A100-SXM" && strings.Contains(n, "40GB") {
				key = "A100-SXM-40GB"
			}
			return deviceByKey(key), "device name"
		}
		if c.frag == "A100" && strings.Contains(n, "A100") {
			return deviceByKey("A100-PCIe"), "device name"
		}
	}
	byArch := map[string]string{"gfx950": "MI355X", "gfx942": "MI300X", "gfx90a": "MI250X",
		"sm100": "B200", "sm90": "H100-SXM", "sm80": "A100-SXM"}
	if k, ok := byArch[observedArch]; ok {
		return deviceByKey(k), "observed arch " + observedArch
	}
	return nil, ""
}
