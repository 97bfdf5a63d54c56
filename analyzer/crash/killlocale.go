package crash

import "strings"

// A shell reports a child's death with strsignal(3)'s text, which glibc
// translates: under LANG=zh_CN.UTF-8 bash prints "已杀死" where it prints
// "Killed" in English, and its "(core dumped)" comes from bash's own
// catalog. localDeathWords holds the real msgstr of glibc's libc.mo
// (libc-l10n 2.36) for the four signals a crash log ends with; localCoreDumped
// bash.mo's msgstr of "(core dumped) ". Only these texts are read: a
// guessed translation would be a rule fitted to nothing.
var localDeathWords = []struct{ word, sig string }{
	// msgid "Killed"
	{"已杀死", "SIGKILL"}, {"強制結束", "SIGKILL"}, {"強制終了", "SIGKILL"}, {"죽었음", "SIGKILL"},
	{"Getötet", "SIGKILL"}, {"Processus arrêté", "SIGKILL"}, {"Terminado (killed)", "SIGKILL"},
	{"Ucciso", "SIGKILL"}, {"Убито", "SIGKILL"}, {"Вбито", "SIGKILL"}, {"Morto", "SIGKILL"},
	{"Unicestwiony", "SIGKILL"}, {"Geëlimineerd", "SIGKILL"}, {"Süreç durduruldu", "SIGKILL"},
	{"Bị buộc kết thúc", "SIGKILL"}, {"Dödad", "SIGKILL"}, {"Zabit (SIGKILL)", "SIGKILL"},
	// msgid "Segmentation fault"
	{"段错误", "SIGSEGV"}, {"程式記憶體區段錯誤", "SIGSEGV"}, {"세그멘테이션 오류", "SIGSEGV"},
	{"Speicherzugriffsfehler", "SIGSEGV"}, {"Erreur de segmentation", "SIGSEGV"},
	{"Violación de segmento", "SIGSEGV"}, {"Errore di segmentazione", "SIGSEGV"},
	{"Ошибка сегментирования", "SIGSEGV"}, {"Помилка адресування", "SIGSEGV"},
	{"Falha de segmentação", "SIGSEGV"}, {"Naruszenie ochrony pamięci", "SIGSEGV"},
	{"Segmentatiefout", "SIGSEGV"}, {"Parçalama arızası", "SIGSEGV"}, {"Lỗi phân đoạn", "SIGSEGV"},
	{"Segmenteringsfel", "SIGSEGV"}, {"Neoprávněný přístup do paměti (SIGSEGV)", "SIGSEGV"},
	// msgid "Aborted"
	{"已放弃", "SIGABRT"}, {"中止", "SIGABRT"}, {"중지됨", "SIGABRT"}, {"Abgebrochen", "SIGABRT"},
	{"Abandon", "SIGABRT"}, {"Abortado", "SIGABRT"}, {"Annullato", "SIGABRT"},
	{"Аварийный останов", "SIGABRT"}, {"Перервано", "SIGABRT"}, {"Przerwane", "SIGABRT"},
	{"Afgebroken", "SIGABRT"}, {"İptal edildi", "SIGABRT"}, {"Bị hủy bỏ", "SIGABRT"},
	{"Avbruten (SIGABRT)", "SIGABRT"}, {"Neúspěšně ukončen (SIGABRT)", "SIGABRT"},
	// msgid "Bus error"
	{"总线错误", "SIGBUS"}, {"匯流排錯誤", "SIGBUS"}, {"バスエラー", "SIGBUS"}, {"버스 오류", "SIGBUS"},
	{"Bus-Zugriffsfehler", "SIGBUS"}, {"Erreur du bus", "SIGBUS"}, {"Error del bus", "SIGBUS"},
	{"Errore di bus", "SIGBUS"}, {"Ошибка шины", "SIGBUS"}, {"Erro no barramento", "SIGBUS"},
	{"Błąd szyny", "SIGBUS"}, {"Busfout", "SIGBUS"}, {"Veri yolu hatası", "SIGBUS"},
	{"Lỗi bus", "SIGBUS"}, {"Bussfel", "SIGBUS"},
}

// localCoreDumped: bash.mo's msgstr of "(core dumped) " (French and Czech
// keep the English words), and the older German "(Speicherabbild
// geschrieben)" of bash 4.x.
var localCoreDumped = []string{
	"(core dumped", "（核心已转储）", "(核心已傾印)", "(コアダンプ)", "(코어 덤프됨)",
	"(Speicherabzug geschrieben)", "(Speicherabbild geschrieben)", "(`core' generado)",
	"(core dump creato)", "(образ памяти сброшен на диск)", "(imagem do núcleo gravada)",
	"(zrzut pamięci)", "(geheugendump gemaakt)", "(çekirdek döküldü)",
	"(збережено знімок оперативної пам’яті)", "(xuất ra core)", "(minnesutskrift skapad)",
}

// localDeathKeywords feed the exit parser's prefilter list (exitKeywords).
var localDeathKeywords = func() []string {
	w := make([]string, len(localDeathWords))
	for i, d := range localDeathWords {
		w[i] = d.word
	}
	return w
}()

// extractLocalShellDeath reads a shell's death report in another locale,
// in the three shapes bash prints: the word alone (an interactive
// command's death, "(core dumped)" after it), "<script>: <line N>: <pid>
// <word> <command>" and the job notice "[1]+  <word>  <command>". A word
// inside a sentence is none: whole reports only, since several of these
// words are everyday ones ("Abandon", "Morto").
func extractLocalShellDeath(tt string) (shellDeath, bool) {
	tt = unemphasize(strings.TrimSpace(tt))
	for _, d := range localDeathWords {
		i := strings.Index(tt, d.word)
		if i < 0 {
			continue
		}
		pre := strings.TrimRight(tt[:i], " \t")
		post := strings.TrimSpace(tt[i+len(d.word):])
		if pre == "" {
			if post == "" || isCoreDumped(post) {
				return shellDeath{sig: d.sig, whole: true}, true
			}
			continue
		}
		if jobNotice(pre) {
			return shellDeath{sig: d.sig, whole: true}, true
		}
		j := len(pre)
		for j > 0 && pre[j-1] >= '0' && pre[j-1] <= '9' {
			j--
		}
		if j == len(pre) {
			continue
		}
		head := strings.TrimRight(pre[:j], " \t")
		if head == "" || strings.HasSuffix(head, ":") || strings.HasSuffix(head, "：") {
			return shellDeath{pid: atoiDef(pre[j:], 0), sig: d.sig, whole: true}, true
		}
	}
	return shellDeath{}, false
}

func isCoreDumped(s string) bool {
	for _, c := range localCoreDumped {
		if strings.HasPrefix(s, c) {
			return true
		}
	}
	return false
}

// jobNotice is bash's job-table mark "[1]+", "[2]-", "[3]".
func jobNotice(pre string) bool {
	if len(pre) < 3 || pre[0] != '[' {
		return false
	}
	k := strings.IndexByte(pre, ']')
	if k < 2 || strings.Trim(pre[1:k], "0123456789") != "" {
		return false
	}
	rest := pre[k+1:]
	return rest == "" || rest == "+" || rest == "-"
}

// unemphasize undoes a reporter's markdown emphasis around a whole line
// ("**Killed**", "**Segmentation fault (core dumped)**"): the paste of a
// death line made bold is still the line.
func unemphasize(tt string) string {
	for _, m := range []string{"**", "__"} {
		if len(tt) > 2*len(m) && strings.HasPrefix(tt, m) && strings.HasSuffix(tt, m) {
			return strings.TrimSpace(tt[len(m) : len(tt)-len(m)])
		}
	}
	return tt
}
