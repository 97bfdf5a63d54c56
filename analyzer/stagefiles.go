package analyzer

import (
	"path"
	"regexp"
	"strings"

	"github.com/gputriage/gputriage/analyzer/callsite"
	"github.com/gputriage/gputriage/analyzer/trace"
)

// stageStore returns the store a trace file of a per-trace command is
// read into: a new one, except for the stage files of one rank of one
// SGLang profile (<id>-TP-<rank>-EXTEND…, <id>-TP-<rank>-DECODE…, the
// profiler's --profile-by-stage output), which share a store so that
// triage analyses every stage of that rank and not only one file. Ranks
// stay apart (one store each); diff keeps one store per file. The stage
// comes from generic markers in the file name (callsite.OfPath).
func (j *Job) stageStore(name string) *trace.Store {
	key := ""
	if j.opts.Command != "diff" {
		key = stageFileKey(name)
	}
	if st := j.stageFiles[key]; key != "" && st != nil {
		return st
	}
	st := trace.NewStore()
	st.Budget = j.budget
	j.stores = append(j.stores, st)
	if key != "" {
		if j.stageFiles == nil {
			j.stageFiles = map[string]*trace.Store{}
		}
		j.stageFiles[key] = st
	}
	return st
}

// stageFileKey is folder + profile id + rank of a stage-marked SGLang
// trace file name, "" for any other name.
func stageFileKey(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	base := path.Base(name)
	m := sglangRank.FindStringSubmatch(base)
	if m == nil || callsite.OfPath(base[len(m[0]):]) == "" {
		return ""
	}
	return path.Dir(name) + "\x00" + m[0]
}

// sglangRank is the profile id and rank prefix of SGLang's file naming.
var sglangRank = regexp.MustCompile(`^(.+?)-TP-\d+`)
