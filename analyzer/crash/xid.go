package crash

import "strings"

// xidEntry is one row of NVIDIA's Xid catalog: the driver's description and
// the crash class the Xid implies ("" = no crash class of its own: display,
// video codec and informational events say nothing about a compute job).
type xidEntry struct {
	name  string
	class string
	conf  float64
}

// xidCatalog is NVIDIA's Xid catalog ("Xid Errors", docs.nvidia.com/deploy/
// xid-errors/, the XID_Errors.pdf listing of r555 and the Ampere+ catalog of
// analyzing-xid-catalog.html; descriptions as the catalog words them, also
// mirrored by leptonai/gpud pkg/nvidia-query/xid). Classes follow the
// catalog's causes and resolution buckets:
//   - the application's memory faults (cause "user application error";
//     debug with compute-sanitizer / cuda-gdb): 13 graphics engine exception,
//     31 MMU fault, 137 NVLink FLA privilege error (an illegal peer access);
//     43 "GPU stopped processing" (RESET_CHANNEL_VERIF_ERROR) and 45
//     "preemptive cleanup" follow them, less sure;
//   - 69 graphics engine class error: a method the engine refused;
//   - hardware (ECC, row remapping, page / resource retirement, NVLink, C2C,
//     memory interface, power, InfoROM / SPI flash): ecc_ras — the GPU's
//     RAS reports, a hardware ticket;
//   - hang / reset / firmware (stopped processing, semaphore / framebuffer /
//     context-switch / fatal timeouts, micro-controller halts, GSP RPC
//     timeouts and errors, fallen off the bus, PCIe fatal timeout, recovery
//     action changed, initialisation failure): gpu_hang_reset;
//   - the driver's own path (programming or exception handling errors,
//     corrupted push buffers, illegal access by the driver, copy-engine
//     exceptions, bus mastering disabled): dma_driver_fault.
var xidCatalog = map[int]xidEntry{
	1:   {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	2:   {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	3:   {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	4:   {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	6:   {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	7:   {"Invalid or corrupted push buffer address", ClassDMADriverFault, 0.5},
	8:   {"GPU stopped processing", ClassGPUHangReset, 0.75},
	9:   {"Driver error programming GPU", ClassDMADriverFault, 0.6},
	11:  {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	12:  {"Driver error handling GPU exception", ClassDMADriverFault, 0.6},
	13:  {"Graphics Engine Exception", ClassGPUMemoryFault, 0.75},
	16:  {"Display engine hung", "", 0},
	18:  {"Bus mastering disabled in PCI Config Space", ClassDMADriverFault, 0.6},
	19:  {"Display Engine error", "", 0},
	20:  {"Invalid or corrupted Mpeg push buffer", "", 0},
	21:  {"Invalid or corrupted Motion Estimation push buffer", "", 0},
	22:  {"Invalid or corrupted Video Processor push buffer", "", 0},
	24:  {"GPU semaphore timeout", ClassGPUHangReset, 0.6},
	25:  {"Invalid or illegal push buffer stream", ClassDMADriverFault, 0.5},
	26:  {"Framebuffer timeout", ClassGPUHangReset, 0.6},
	27:  {"Video processor exception", "", 0},
	28:  {"Video processor exception", "", 0},
	29:  {"Video processor exception", "", 0},
	30:  {"GPU semaphore access error", ClassGPUHangReset, 0.5},
	31:  {"GPU memory page fault", ClassGPUMemoryFault, 0.75},
	32:  {"Invalid or corrupted push buffer stream", ClassDMADriverFault, 0.5},
	33:  {"Internal micro-controller error", ClassGPUHangReset, 0.6},
	34:  {"Video processor exception", "", 0},
	35:  {"Video processor exception", "", 0},
	36:  {"Video processor exception", "", 0},
	37:  {"Driver firmware error", ClassGPUHangReset, 0.6},
	38:  {"Driver firmware error", ClassGPUHangReset, 0.6},
	42:  {"Video processor exception", "", 0},
	43:  {"GPU stopped processing", ClassGPUMemoryFault, 0.5},
	44:  {"Graphics Engine fault during context switch", ClassDMADriverFault, 0.6},
	45:  {"Preemptive cleanup, due to previous errors", ClassGPUMemoryFault, 0.5},
	46:  {"GPU stopped processing", ClassGPUHangReset, 0.6},
	47:  {"Video processor exception", "", 0},
	48:  {"Double Bit ECC Error", ClassECCRAS, 0.75},
	54:  {"Auxiliary power is not connected to the GPU board", ClassECCRAS, 0.6},
	56:  {"Display Engine error", "", 0},
	57:  {"Error programming video memory interface", ClassECCRAS, 0.6},
	58:  {"Unstable video memory interface detected", ClassECCRAS, 0.6},
	59:  {"Internal micro-controller error", ClassGPUHangReset, 0.6},
	60:  {"Video processor exception", "", 0},
	61:  {"Internal micro-controller breakpoint/warning", ClassGPUHangReset, 0.6},
	62:  {"Internal micro-controller halt", ClassGPUHangReset, 0.75},
	63:  {"ECC page retirement or row remapping recording event", ClassECCRAS, 0.75},
	64:  {"ECC page retirement or row remapper recording failure", ClassECCRAS, 0.75},
	65:  {"Video processor exception", "", 0},
	66:  {"Illegal access by driver", ClassDMADriverFault, 0.6},
	67:  {"Illegal access by driver", ClassDMADriverFault, 0.6},
	68:  {"NVDEC0 Exception", "", 0},
	69:  {"Graphics Engine class error", ClassDeviceAssert, 0.75},
	70:  {"CE3: Unknown Error", ClassDMADriverFault, 0.5},
	71:  {"CE4: Unknown Error", ClassDMADriverFault, 0.5},
	72:  {"CE5: Unknown Error", ClassDMADriverFault, 0.5},
	73:  {"NVENC2 Error", "", 0},
	74:  {"NVLINK Error", ClassECCRAS, 0.75},
	75:  {"CE6: Unknown Error", ClassDMADriverFault, 0.5},
	76:  {"CE7: Unknown Error", ClassDMADriverFault, 0.5},
	77:  {"CE8: Unknown Error", ClassDMADriverFault, 0.5},
	78:  {"vGPU Start Error", ClassDMADriverFault, 0.5},
	79:  {"GPU has fallen off the bus", ClassGPUHangReset, 0.75},
	80:  {"Corrupted data sent to GPU", ClassDMADriverFault, 0.5},
	81:  {"VGA Subsystem Error", "", 0},
	82:  {"NVJPG0 Error", "", 0},
	83:  {"NVDEC1 Error", "", 0},
	84:  {"NVDEC2 Error", "", 0},
	85:  {"CE9: Unknown Error", ClassDMADriverFault, 0.5},
	86:  {"OFA Exception", "", 0},
	88:  {"NVDEC3 Error", "", 0},
	89:  {"NVDEC4 Error", "", 0},
	92:  {"High single-bit ECC error rate", ClassECCRAS, 0.75},
	93:  {"Non-fatal violation of provisioned InfoROM wear limit", "", 0},
	94:  {"Contained ECC error", ClassECCRAS, 0.75},
	95:  {"Uncontained ECC error", ClassECCRAS, 0.75},
	96:  {"NVDEC5 Error", "", 0},
	97:  {"NVDEC6 Error", "", 0},
	98:  {"NVDEC7 Error", "", 0},
	99:  {"NVJPG1 Error", "", 0},
	100: {"NVJPG2 Error", "", 0},
	101: {"NVJPG3 Error", "", 0},
	102: {"NVJPG4 Error", "", 0},
	103: {"NVJPG5 Error", "", 0},
	104: {"NVJPG6 Error", "", 0},
	105: {"NVJPG7 Error", "", 0},
	106: {"SMBPBI Test Message", "", 0},
	107: {"SMBPBI Test Message Silent", "", 0},
	109: {"Context Switch Timeout Error", ClassGPUHangReset, 0.75},
	110: {"Security Fault Error", ClassECCRAS, 0.6},
	111: {"Display Bundle Error Event", "", 0},
	112: {"Display Supervisor Error", "", 0},
	113: {"DP Link Training Error", "", 0},
	114: {"Display Pipeline Underflow Error", "", 0},
	115: {"Display Core Channel Error", "", 0},
	116: {"Display Window Channel Error", "", 0},
	117: {"Display Cursor Channel Error", "", 0},
	118: {"Display Pixel Pipeline Error", "", 0},
	119: {"GSP RPC Timeout", ClassGPUHangReset, 0.75},
	120: {"GSP Error", ClassGPUHangReset, 0.75},
	121: {"C2C Link Error", ClassECCRAS, 0.6},
	122: {"SPI PMU RPC Read Failure", ClassECCRAS, 0.5},
	123: {"SPI PMU RPC Write Failure", ClassECCRAS, 0.6},
	124: {"SPI PMU RPC Erase Failure", ClassECCRAS, 0.5},
	125: {"Inforom FS Failure", ClassECCRAS, 0.5},
	137: {"NVLink FLA privilege error", ClassGPUMemoryFault, 0.7},
	140: {"Unrecovered ECC Error", ClassECCRAS, 0.75},
	142: {"Unrecovered ECC Error", ClassECCRAS, 0.75},
	143: {"GPU Initialization Failure", ClassGPUHangReset, 0.7},
	144: {"NVLINK: SAW Error", ClassECCRAS, 0.75},
	145: {"NVLINK: RLW Error", ClassECCRAS, 0.75},
	146: {"NVLINK: TLW Error", ClassECCRAS, 0.75},
	147: {"NVLINK: TREX Error", ClassECCRAS, 0.75},
	148: {"NVLINK: NVLPW_CTRL Error", ClassECCRAS, 0.75},
	149: {"NVLINK: NETIR Error", ClassECCRAS, 0.75},
	150: {"NVLINK: MSE Error", ClassECCRAS, 0.75},
	151: {"Key rotation Error", ClassDMADriverFault, 0.5},
	152: {"DLA SMMU Error", "", 0},
	153: {"DLA timeout Error", "", 0},
	154: {"GPU Recovery Action Changed", ClassGPUHangReset, 0.75},
	155: {"NVLINK: SW Defined Error", ClassECCRAS, 0.6},
	156: {"Resource Retirement Event", ClassECCRAS, 0.6},
	157: {"Resource Retirement Failure", ClassECCRAS, 0.6},
	158: {"GPU Fatal Timeout", ClassGPUHangReset, 0.75},
	159: {"CHI Non-Data Error", ClassECCRAS, 0.6},
	160: {"Channel Retirement Event", ClassECCRAS, 0.5},
	161: {"Channel Retirement Failure", ClassECCRAS, 0.5},
	162: {"Power Smoothing HW Circuitry capability reengaged", "", 0},
	163: {"Power Smoothing HW Circuitry capability disengaged", "", 0},
	164: {"Power Smoothing HW Circuitry low lifetime reached", "", 0},
	165: {"Power Smoothing HW Circuitry lifetime exhausted", "", 0},
	166: {"CC traffic seen prior to link properly being configured for encrypted traffic", ClassDMADriverFault, 0.5},
	167: {"PCIE_FATAL_TIMEOUT", ClassGPUHangReset, 0.75},
	168: {"Errors found in WPR (write protected region)", ClassGPUHangReset, 0.6},
	169: {"Internal micro-controller halt", ClassGPUHangReset, 0.75},
	170: {"Interrupt seen in CC mode", ClassDMADriverFault, 0.5},
	171: {"Additional to Xid 48: DRAM/SRAM fault details", ClassECCRAS, 0.75},
	172: {"Additional to Xid 48: DRAM/SRAM fault details", ClassECCRAS, 0.75},
	173: {"C2C Fatal Link Failure", ClassECCRAS, 0.75},
}

// xidClass is the class an Xid implies. The detail the driver prints after
// the code refines Xid 13: an SM warp exception "Illegal Instruction
// Encoding" / "Illegal Instruction Parameter" is the GPU refusing an
// instruction (cudaErrorIllegalInstruction 715), not a bad address
// (3dem/relion#436, ggml-org/llama.cpp#23811, leptonai/gpud#46).
func xidClass(code int, detail string) (string, float64) {
	e, ok := xidCatalog[code]
	if !ok {
		return "", 0
	}
	if code == 13 && strings.Contains(detail, "Illegal Instruction") {
		return ClassIllegalInstruction, 0.75
	}
	return e.class, e.conf
}

// xidName is the catalog's description of an Xid ("" when unknown).
func xidName(code int) string { return xidCatalog[code].name }
