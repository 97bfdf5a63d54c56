package collectives

import "strings"

// Link is a GPU's scale-up fabric as its datasheet gives it. Peaks are per
// direction (busbw is a one-way rate): half the datasheet's bidirectional
// figure.
type Link struct {
	Device string `json:"device"`
	Fabric string `json:"fabric"`
	// GBPS is the GPU's whole fabric bandwidth per direction (through a
	// switch every peer gets all of it); PerPeer, for a fully connected
	// mesh without a switch (AMD xGMI), is one link's, so a group of n
	// ranks on one node reaches min(n−1, Links) × PerPeer.
	GBPS    float64 `json:"gbps"`
	PerPeer float64 `json:"per_peer_gbps,omitempty"`
	Links   int     `json:"links,omitempty"`
	Source  string  `json:"source"`
}

// links are the vendors' datasheet numbers, matched by device name.
var links = []struct {
	frag string
	Link
}{
	{"MI355", Link{Device: "AMD Instinct MI355X", Fabric: "xGMI (Infinity Fabric)", GBPS: 7 * 76.8, PerPeer: 76.8, Links: 7,
		Source: "AMD Instinct MI355X datasheet: 7 Infinity Fabric links, 153.6 GB/s peak per link (bidirectional)"}},
	{"MI325", Link{Device: "AMD Instinct MI325X", Fabric: "xGMI (Infinity Fabric)", GBPS: 7 * 64, PerPeer: 64, Links: 7,
		Source: "AMD Instinct MI325X datasheet: 7 Infinity Fabric links, 128 GB/s peak per link (bidirectional), 896 GB/s aggregate"}},
	{"MI300X", Link{Device: "AMD Instinct MI300X", Fabric: "xGMI (Infinity Fabric)", GBPS: 7 * 64, PerPeer: 64, Links: 7,
		Source: "AMD Instinct MI300X datasheet: 7 Infinity Fabric links, 128 GB/s peak per link (bidirectional), 896 GB/s aggregate"}},
	{"B200", Link{Device: "NVIDIA B200", Fabric: "NVLink 5 (NVSwitch)", GBPS: 900,
		Source: "NVIDIA HGX B200 datasheet: NVLink 1.8 TB/s per GPU (bidirectional)"}},
	{"H200", Link{Device: "NVIDIA H200 SXM", Fabric: "NVLink 4 (NVSwitch)", GBPS: 450,
		Source: "NVIDIA H200 datasheet, SXM: NVLink 900 GB/s (bidirectional)"}},
	{"H100 PCIE", Link{}},
	{"H100", Link{Device: "NVIDIA H100 SXM5", Fabric: "NVLink 4 (NVSwitch)", GBPS: 450,
		Source: "NVIDIA H100 datasheet, SXM: NVLink 900 GB/s (bidirectional)"}},
	{"A100-PCIE", Link{}},
	{"A100 PCIE", Link{}},
	{"A100", Link{Device: "NVIDIA A100 SXM", Fabric: "NVLink 3 (NVSwitch)", GBPS: 300,
		Source: "NVIDIA A100 datasheet, SXM: NVLink 600 GB/s (bidirectional)"}},
	{"V100-SXM2", Link{Device: "NVIDIA Tesla V100 SXM2", Fabric: "NVLink 2 (hybrid cube mesh)", GBPS: 150,
		Source: "NVIDIA Tesla V100 datasheet, SXM2: NVLink 300 GB/s (bidirectional)"}},
}

// LinkOf is the fabric of a device name (deviceProperties' name), or nil
// when the table does not know it (PCIe parts: their peer path varies).
func LinkOf(device string) *Link {
	d := strings.ToUpper(device)
	for i := range links {
		if strings.Contains(d, links[i].frag) {
			if links[i].GBPS == 0 {
				return nil
			}
			return &links[i].Link
		}
	}
	return nil
}

// Peak is the per-direction peak a group of n ranks can reach.
func (l *Link) Peak(n int) float64 {
	if l.PerPeer > 0 && n > 1 {
		return float64(min(n-1, l.Links)) * l.PerPeer
	}
	return l.GBPS
}
