const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3,
  'μs': 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/**
 * Parses a Go duration string ("1h30m", "300ms", "1.5h", "-2s", "0") into
 * nanoseconds, as time.ParseDuration does. Throws with Go's wording.
 */
export function parseGoDuration(input: string): number {
  const bad = () => new Error(`time: invalid duration "${input}"`);
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw bad();
  let total = 0;
  const re = /^([0-9]*(?:\.[0-9]*)?)([^0-9.]*)/;
  while (s !== '') {
    const m = re.exec(s);
    if (!m || m[1] === '' || m[1] === '.') throw bad();
    if (m[2] === '') throw new Error(`time: missing unit in duration "${input}"`);
    const unit = UNIT_NS[m[2] as string];
    if (unit === undefined) throw new Error(`time: unknown unit "${m[2]}" in duration "${input}"`);
    total += Number(m[1]) * unit;
    s = s.slice(m[0].length);
  }
  return sign * total;
}

/** A duration field as SPIRE takes it: whole seconds, truncated, as spire-controller-manager sends it. */
export function durationToSeconds(input: string | undefined): number {
  if (input === undefined || input === '') return 0;
  return Math.trunc(parseGoDuration(input) / 1e9);
}
