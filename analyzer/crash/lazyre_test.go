package crash

import (
	"testing"

	"github.com/gputriage/gputriage/analyzer/internal/lazyre"
)

// TestRegexpsCompile compiles every regexp of the package: they compile on
// first use, so a bad one would otherwise panic only on the input that
// reaches it.
func TestRegexpsCompile(t *testing.T) {
	all := lazyre.All()
	if len(all) < 200 {
		t.Fatalf("only %d lazy regexps registered: the crash package has ~240", len(all))
	}
	for _, r := range all {
		r.Regexp()
	}
}
