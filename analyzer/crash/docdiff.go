package crash

import "bytes"

// Defeater: the added lines of a diff to a document are documentation. A
// pull request's review thread quotes the troubleshooting page it adds —
// "+## CUDA error: device-side assert triggered", "+“RuntimeError: CUDA
// out of memory“", "+   Killed" under "+.. code-block:: text" — and read
// as log lines every quoted error becomes a finding. Such a diff is known
// by document markup on an added line (a Markdown heading, fence, bold
// lead or list item, an RST directive, YAML front matter); from there on
// the file's "+" / "-" lines are text, not evidence. A shell's xtrace
// ("+ python train.py") and a log's own "+" lines carry no such markup.
func (s *Session) docDiffLine(b []byte) bool {
	f := s.cur
	if len(b) < 2 || (b[0] != '+' && b[0] != '-') {
		return false
	}
	if f.docDiff {
		return true
	}
	if b[0] == '+' && docMarkup(b[1:]) {
		f.docDiff = true
		f.quality["document_diff_skipped"] = true
		return true
	}
	return false
}

// docMarkup: the start of a Markdown / RST / front-matter line.
func docMarkup(t []byte) bool {
	for _, p := range [...]string{"# ", "## ", "### ", "#### ", "```", "**", ".. code-block::", ".. note::", ".. warning::"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return bytes.Equal(bytes.TrimRight(t, " \t\r"), []byte("---"))
}
