// Number formatting. Durations arrive in µs (3 decimals = ns precision).

export function dur(us) {
  if (us == null || !Number.isFinite(us)) return '—';
  if (us === 0) return '0';
  const a = Math.abs(us);
  if (a >= 1e6) return `${(us / 1e6).toFixed(a >= 1e7 ? 2 : 3)} s`;
  if (a >= 1e3) return `${(us / 1e3).toFixed(a >= 1e5 ? 1 : 2)} ms`;
  if (a >= 1) return `${us.toFixed(a >= 100 ? 0 : 1)} µs`;
  return `${(us * 1e3).toFixed(0)} ns`;
}

export function pct(r, digits = 1) {
  if (r == null || !Number.isFinite(r)) return '—';
  return `${(r * 100).toFixed(digits)}%`;
}

export function int(n) {
  if (typeof n === 'bigint') return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ','); // an id past 2^53 (json.js)
  if (n == null || !Number.isFinite(n)) return '—';
  // Not toLocaleString: its first call loads ICU data, a visible stall.
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function bytes(n) {
  if (n == null || !Number.isFinite(n)) return '—';
  const u = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
  return `${n.toFixed(i === 0 ? 0 : n >= 100 ? 0 : n >= 10 ? 1 : 2)} ${u[i]}`;
}

export function secs(s) {
  if (s == null || !Number.isFinite(s)) return '—';
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.round(s % 60)).padStart(2, '0')}`;
}
