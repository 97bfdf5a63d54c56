package crash

// An NCCL / RCCL transport failure is reported by the process whose
// connection failed ("host:pid:tid [dev] … NCCL WARN NET/IB : Got
// completion from peer … with error 12"): when one process alone reports
// it, its rank (NCCL's own "comm … rank R nranks N … Init COMPLETE" record
// of that pid, incident.go's pid → rank map) is where to look — its link or
// the peer it names. Two processes reporting leave none: the fabric, not a
// rank. Weaker than every straggler rule, like the kernel's own line.

// reported records the process of one transport WARN.
func (a *agg) reported(pid int, ev Evidence) {
	if a.reportPID == 0 && pid > 0 {
		a.reportEv = ev
	}
	a.reportPID = onePID(a.reportPID, pid)
}

// reporterCulprit adds the one reporting process as rccl_transport's
// weakest culprit.
func (b *builder) reporterCulprit(cs *culpritSet, work map[string]*agg, mk func(rank, pid int, gpu, reason, method string, evs ...Evidence) Culprit) {
	a := work[ClassRCCLTransport]
	if a == nil || a.reportPID <= 0 {
		return
	}
	if _, ok := cs.kernel[ClassRCCLTransport]; ok {
		return
	}
	if cs.kernel == nil {
		cs.kernel = map[string]Culprit{}
	}
	cs.kernel[ClassRCCLTransport] = mk(-1, a.reportPID, "", "the only process whose NCCL reported the transport failure: its connection (or the peer it names) failed", "the host:pid of the one NCCL WARN, its rank from NCCL's init record", a.reportEv)
}
