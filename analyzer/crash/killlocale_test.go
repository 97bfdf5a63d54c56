package crash

import "testing"

// Localized shell death reports. The words are glibc's libc.mo msgstr
// (libc-l10n 2.36: msgunfmt of /usr/share/locale/<ll>/LC_MESSAGES/libc.mo)
// and bash.mo's "(core dumped) "; the lines are real pastes.
func TestExtractLocalShellDeath(t *testing.T) {
	cases := []struct {
		src, text string
		want      shellDeath
		ok        bool
	}{
		// a zh_CN desktop: the training run's last line
		{"https://github.com/danijar/dreamerv3/issues/203", "已杀死", shellDeath{sig: "SIGKILL", whole: true}, true},
		// a CentOS 7 shell after a Java OutOfMemoryError (public notes, code corpus)
		{"code corpus: java thread-limit notes (CentOS 7, zh_CN)", "已杀死", shellDeath{sig: "SIGKILL", whole: true}, true},
		// bash's job notice after `kill -9` (public blog source, code corpus)
		{"code corpus: 'Linux 通过端口号 杀死进程' (bash job table)", "[1]+  已杀死               nohup java -jar dlfc-framework-bigdata-statistical-1.0-SNAPSHOT.jar",
			shellDeath{sig: "SIGKILL", whole: true}, true},
		// bash 4's German "(core dumped)", quoted by a game's text table (code corpus)
		{"code corpus: German shell message table", "Speicherzugriffsfehler (Speicherabbild geschrieben)", shellDeath{sig: "SIGSEGV", whole: true}, true},
		// the script form, with bash.mo's zh_CN "line %d" and a pid
		{"bash.mo zh_CN \"%s: line %d: \" + libc.mo \"Killed\"", "./train.sh: 第 9 行： 4727 已杀死               python train.py",
			shellDeath{pid: 4727, sig: "SIGKILL", whole: true}, true},
		{"bash.mo de + libc.mo de", "./run.sh: Zeile 12: 31337 Getötet                 python main.py",
			shellDeath{pid: 31337, sig: "SIGKILL", whole: true}, true},
		{"bash.mo zh_CN (core dumped)", "段错误 （核心已转储）", shellDeath{sig: "SIGSEGV", whole: true}, true},
		// the same words inside a sentence are no report
		{"code corpus: a shell script's echo", "已杀死服务器进程: 4242", shellDeath{}, false},
		{"code corpus: a game's quest text", "已杀死叶二娘1/1", shellDeath{}, false},
		{"prose (fr)", "Abandon du projet en cours", shellDeath{}, false},
		{"prose (de)", "Der Prozess wurde mit Speicherzugriffsfehler beendet", shellDeath{}, false},
	}
	for _, c := range cases {
		got, ok := extractLocalShellDeath(c.text)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: extractLocalShellDeath(%q) = %+v, %v; want %+v, %v", c.src, c.text, got, ok, c.want, c.ok)
		}
	}
}

// A death line a reporter made bold in markdown is still the line.
func TestUnemphasizeDeathLine(t *testing.T) {
	for _, c := range []struct{ src, text, want string }{
		{"https://github.com/CharlesShang/FastMaskRCNN/issues/172", "**Killed**", "SIGKILL"},
		{"https://github.com/InternLandMark/LandMark/issues/61", "**Killed**", "SIGKILL"},
		{"issues corpus: an Ubuntu forum post (gtk app crash)", "**Segmentation fault (core dumped)**", "SIGSEGV"},
		{"prose", "**Killed** runs are restarted", ""},
	} {
		d, ok := extractShellDeath(unemphasize(c.text))
		got := ""
		if ok && d.whole {
			got = d.sig
		}
		if got != c.want {
			t.Errorf("%s: %q read as %q, want %q", c.src, c.text, got, c.want)
		}
	}
}

// The whole path: a localized "Killed" ends a run as the kill it is.
func TestLocalizedKilledIsHostOOMKill(t *testing.T) {
	d := diagnoseWhole("run.log", []byte("Writing metrics: /tmp/logdir/metrics.jsonl\n已杀死\n"))
	if hasClass(d, ClassHostOOMKill) == nil {
		t.Fatalf("classes %v, want host_oom_kill", classesOf(d))
	}
	d = diagnoseWhole("run.log", []byte("step 10 loss 0.3\n已杀死叶二娘1/1\n"))
	if hasClass(d, ClassHostOOMKill) != nil {
		t.Fatalf("a sentence read as a kill: %v", classesOf(d))
	}
}
