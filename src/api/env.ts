/**
 * `$VAR` / `${VAR}` substitution with the exact rules of Go's os.ExpandEnv,
 * which spire-controller-manager applies to static manifests: an unset
 * variable becomes "", a `$` not followed by a name stays, `${}` and an
 * unterminated `${` are dropped, and the shell's one-character special names
 * ($0-$9, $*, $#, $$, $@, $!, $?, $-) are looked up like any other.
 * `onUnset` hears each name that had no value, so a caller can say which.
 */
export function expandEnv(text: string, env: Record<string, string | undefined>, onUnset?: (name: string) => void): string {
  if (!text.includes('$')) return text;
  let out = '';
  let from = 0;
  for (let j = 0; j < text.length; j++) {
    if (text[j] !== '$' || j + 1 >= text.length) continue;
    out += text.slice(from, j);
    const { name, width } = shellName(text, j + 1);
    if (name === '' && width > 0) {
      // Bad syntax (`${}` or an unterminated `${`): Go drops it.
    } else if (name === '') {
      out += '$';
    } else {
      const value = env[name];
      if (value === undefined) onUnset?.(name);
      out += value ?? '';
    }
    j += width;
    from = j + 1;
  }
  return out + text.slice(from);
}

function isSpecial(c: string | undefined): boolean {
  return c !== undefined && '*#$@!?-0123456789'.includes(c);
}

function isAlphaNum(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z0-9_]$/.test(c);
}

/** The variable name starting at `at` (just after the `$`) and how many characters it spans. */
function shellName(s: string, at: number): { name: string; width: number } {
  if (s[at] === '{') {
    if (isSpecial(s[at + 1]) && s[at + 2] === '}') return { name: s[at + 1] as string, width: 3 };
    const close = s.indexOf('}', at + 1);
    if (close === at + 1) return { name: '', width: 2 };
    if (close < 0) return { name: '', width: 1 };
    return { name: s.slice(at + 1, close), width: close - at + 1 };
  }
  if (isSpecial(s[at])) return { name: s[at] as string, width: 1 };
  let end = at;
  while (isAlphaNum(s[end])) end++;
  return { name: s.slice(at, end), width: end - at };
}
