package crash

import "strings"

// Launcher prefixes that name the local rank of a worker's line.
//
// torchelastic's tee / log-line prefix "[{role}{local_rank}]:" — the
// default role makes "[default3]:" ("[default0]:[rank0]: Traceback …" in
// real logs, c10's own "[rankN]:" after it) — and TorchX's
// "{app}/{replica} [{local_rank}]:" ("trainer/0 [0]:E0927 …",
// "nemo.collections.llm.api.pretrain/0 [default0]:[rank0]: …"). The number
// is the local rank: the global rank on one node, and a global "[rankN]:"
// or srun label read with it wins (stripOne reads them in line order;
// these never overwrite a rank already read).

// matchElasticTag matches "[<role><N>]:" and returns its length and N.
// "[rankN]:" is c10's, read by reRank.
func matchElasticTag(str string) (n, rank int) {
	if len(str) < 4 || str[0] != '[' || strings.HasPrefix(str, "[rank") {
		return 0, -1
	}
	i := 1
	for i < len(str) && i < 33 && (str[i] >= 'a' && str[i] <= 'z' || str[i] >= 'A' && str[i] <= 'Z' || str[i] == '_' || str[i] == '-') {
		i++
	}
	if i == 1 {
		return 0, -1
	}
	j := digitsFrom(str, i)
	if j == i || j+1 >= len(str) || str[j] != ']' || str[j+1] != ':' {
		return 0, -1
	}
	return j + 2, atoiDef(str[i:j], -1)
}

// matchTorchXTag matches "<app>/<replica> [<N>]:" (the app name has no
// blank) and returns its length and N.
func matchTorchXTag(str string) (n, rank int) {
	sp := strings.IndexByte(str, ' ')
	if sp < 3 || sp > 80 {
		return 0, -1
	}
	slash := strings.LastIndexByte(str[:sp], '/')
	if slash < 1 || digitsFrom(str, slash+1) != sp || sp == slash+1 {
		return 0, -1
	}
	rest := str[sp+1:]
	if len(rest) < 4 || rest[0] != '[' {
		return 0, -1
	}
	j := digitsFrom(rest, 1)
	if j == 1 || j+1 >= len(rest) || rest[j] != ']' || rest[j+1] != ':' {
		if m, r := matchElasticTag(rest); m > 0 {
			return sp + 1 + m, r // "app/0 [default0]:"
		}
		return 0, -1
	}
	return sp + 1 + j + 2, atoiDef(rest[1:j], -1)
}
