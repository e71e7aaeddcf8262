import { RE2JS } from 're2js';
import { errorMessage } from './errors.js';

/**
 * `ignoreNamespaces`, matched exactly as spire-controller-manager matches it:
 * each entry is a Go regular expression (RE2 syntax, compiled by re2js, a
 * port of Go's regexp package) and a namespace is ignored when any of them
 * matches anywhere in its name (Go's `MatchString`, unanchored). So `spire`
 * ignores `spire-server` too, and `openshift-*` (a glob to the eye) ignores
 * every namespace whose name contains `openshift`. Configs rely on exactly
 * this; changing it would give identities to pods that had none.
 *
 * This is the one place the patterns are evaluated: selection, status counts
 * and anything that explains them all ask this object.
 */
export class IgnoredNamespaces {
  // Namespace names are few and asked about on every pass, once per ClusterSPIFFEID.
  private readonly answers = new Map<string, boolean>();

  private constructor(
    readonly patterns: readonly string[],
    private readonly compiled: readonly RE2JS[],
  ) {}

  /** Throws IgnoreNamespacesError naming every pattern that does not compile. */
  static compile(patterns: readonly string[]): IgnoredNamespaces {
    const compiled: RE2JS[] = [];
    const problems: { index: number; message: string }[] = [];
    patterns.forEach((pattern, index) => {
      try {
        compiled.push(RE2JS.compile(pattern));
      } catch (err) {
        problems.push({ index, message: compileMessage(pattern, err) });
      }
    });
    if (problems.length > 0) throw new IgnoreNamespacesError(problems);
    return new IgnoredNamespaces([...patterns], compiled);
  }

  static none(): IgnoredNamespaces {
    return new IgnoredNamespaces([], []);
  }

  ignores(namespace: string): boolean {
    let answer = this.answers.get(namespace);
    if (answer === undefined) {
      answer = this.compiled.some((re) => re.test(namespace));
      this.answers.set(namespace, answer);
    }
    return answer;
  }

  /** The first pattern that ignores the namespace, for messages that say why. */
  ignoredBy(namespace: string): string | undefined {
    const i = this.compiled.findIndex((re) => re.test(namespace));
    return i === -1 ? undefined : this.patterns[i];
  }
}

export class IgnoreNamespacesError extends Error {
  constructor(readonly problems: { index: number; message: string }[]) {
    super(problems.map((p) => `ignoreNamespaces[${p.index}]: ${p.message}`).join('; '));
    this.name = 'IgnoreNamespacesError';
  }
}

function compileMessage(pattern: string, err: unknown): string {
  const message = errorMessage(err);
  // `*-system` fails as Go fails it; the likely intent is a glob, so say what to write instead.
  return /^[*?]/.test(pattern) ? `${message} (ignoreNamespaces are regular expressions, not globs: write ".*" for "*")` : message;
}

/**
 * A warning for a pattern that reads like a shell glob (`openshift-*`,
 * `team-?`): a `*` or `?` after a plain character repeats that character, and
 * the match is anywhere in the name, so it ignores far more (or other) names
 * than the eye suggests. Says what it really matches. Undefined for patterns
 * that do not look like globs (`openshift-.*`, `kube-system`).
 */
export function globLikeWarning(pattern: string): string | undefined {
  const m = /^\^?([A-Za-z0-9._-]*?)([A-Za-z0-9_-])([*?])(.*)$/.exec(pattern);
  if (!m) return undefined;
  const [, before = '', repeated = '', op = '', after = ''] = m;
  // Only a plain literal around the operator is unambiguous enough to explain; `.` is a wildcard, not a glob.
  if (before.includes('.') || !/^[A-Za-z0-9_-]*\$?$/.test(after)) return undefined;
  const anchoredStart = pattern.startsWith('^');
  const anchoredEnd = after.endsWith('$');
  const rest = after.replace(/\$$/, '');
  const glob = `"${pattern}" looks like a glob, but ignoreNamespaces are regular expressions matched anywhere in the name`;
  let meaning: string;
  if (op === '*' && rest === '' && !anchoredEnd) {
    // `openshift-*`: the repeated character may be absent, so only the text before it is required.
    const required = before;
    if (required === '') meaning = 'every namespace';
    else meaning = anchoredStart ? `every namespace whose name starts with "${required}"` : `every namespace whose name contains "${required}"`;
  } else {
    const what = op === '*' ? `"${before}" followed by any number of "${repeated}" (none included)` : `"${before}" with an optional "${repeated}"`;
    meaning = `every namespace whose name ${anchoredStart ? 'starts with' : 'contains'} ${what}${rest ? ` and then "${rest}"` : ''}${anchoredEnd ? ' at its end' : ''}`;
  }
  const prefix = `${before}${repeated}`;
  return `${glob}: it ignores ${meaning}; for names starting with "${prefix}", write "^${escapeRegExp(prefix)}"`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
