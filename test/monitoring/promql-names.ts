/**
 * The metric names a PromQL query reads, and whether a /metrics exposition
 * has them: enough of PromQL's lexical structure to tell a metric name from
 * a function, a keyword, a label name or a Grafana variable, without
 * evaluating anything (promtool parses the queries for real: see
 * scripts/check-monitoring.sh).
 */

type Token = { kind: 'ident' | 'string' | 'number' | 'variable' | 'punct'; text: string };

const IDENT = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
// Numbers, durations (5m, 1h30m) and hex; their value never matters here.
const NUMBER = /^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?[a-zA-Z0-9]*)/;
// Grafana's $name, ${name} and ${name:format}.
const VARIABLE = /^\$(?:\{[^}]*\}|[a-zA-Z_][a-zA-Z0-9_]*)/;

function tokenize(expr: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const rest = expr.slice(i);
    const c = expr[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#') {
      // A comment runs to the end of the line.
      const nl = expr.indexOf('\n', i);
      i = nl < 0 ? expr.length : nl;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      // Backquoted strings are raw; the others have backslash escapes.
      while (j < expr.length && expr[j] !== c) j += c !== '`' && expr[j] === '\\' ? 2 : 1;
      out.push({ kind: 'string', text: expr.slice(i + 1, j) });
      i = j + 1;
    } else if (VARIABLE.test(rest)) {
      const m = VARIABLE.exec(rest)![0];
      out.push({ kind: 'variable', text: m });
      i += m.length;
    } else if (/[0-9.]/.test(c) && NUMBER.test(rest)) {
      const m = NUMBER.exec(rest)![0];
      out.push({ kind: 'number', text: m });
      i += m.length;
    } else if (IDENT.test(rest)) {
      const m = IDENT.exec(rest)![0];
      out.push({ kind: 'ident', text: m });
      i += m.length;
    } else {
      // Operators are one token per character: only brackets and commas matter below.
      out.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return out;
}

/** Case-insensitive in PromQL, as are inf and nan. */
const KEYWORDS = new Set([
  // Aggregation operators (followed by `by`/`without` as often as by a parenthesis).
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
  'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan',
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right',
]);
/** Keywords followed by a parenthesised list of label names. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/** The index just past the bracket that closes the one at `open`. */
function closing(tokens: Token[], open: number): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
  const close = pairs[tokens[open]!.text]!;
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'punct') continue;
    if (t.text === tokens[open]!.text) depth++;
    else if (t.text === close && --depth === 0) return i + 1;
  }
  return tokens.length;
}

/**
 * The metric names `expr` selects, in order of first appearance: identifiers
 * used as selectors (alone, or before `{`, `[` or an operator), and the
 * string of a `{__name__="..."}` matcher. Not functions (an identifier
 * before `(`), keywords, label names (inside `{}` and the lists after `by`,
 * `without`, `on`, `ignoring`, `group_left`, `group_right`), durations inside
 * `[]`, strings, numbers, or Grafana variables.
 */
export function metricNames(expr: string): string[] {
  const tokens = tokenize(expr);
  const names = new Set<string>();
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.kind === 'punct' && t.text === '{') {
      const end = closing(tokens, i);
      // Label matchers; only __name__="x" names a metric (=~ and != are two tokens, so the string is not next).
      for (let j = i + 1; j + 2 < end; j++) {
        const [l, op, v] = [tokens[j]!, tokens[j + 1]!, tokens[j + 2]!];
        if (l.kind === 'ident' && l.text === '__name__' && op.text === '=' && v.kind === 'string') names.add(v.text);
      }
      i = end;
    } else if (t.kind === 'punct' && t.text === '[') {
      // A range or subquery: durations and Grafana's $__rate_interval.
      i = closing(tokens, i);
    } else if (t.kind === 'ident' && LABEL_LISTS.has(t.text.toLowerCase())) {
      i = next?.text === '(' ? closing(tokens, i + 1) : i + 1;
    } else if (t.kind === 'ident' && !KEYWORDS.has(t.text.toLowerCase()) && next?.text !== '(') {
      names.add(t.text);
      i++;
    } else {
      i++;
    }
  }
  return [...names];
}

/**
 * Whether a metric name a query uses is a series the exposition has, from
 * its TYPE lines (prom-client writes HELP and TYPE for every registered
 * metric, with or without samples): a counter or gauge by its own name, a
 * histogram's `_bucket`, `_sum` and `_count`, a summary's `_sum` and
 * `_count` (and its own name, which carries the quantiles). A histogram's
 * bare name selects nothing.
 */
export function isExported(name: string, types: ReadonlyMap<string, string>): boolean {
  const own = types.get(name);
  if (own !== undefined) return own !== 'histogram';
  const m = /^(.+)_(bucket|sum|count)$/.exec(name);
  if (!m) return false;
  const family = types.get(m[1]!);
  return family === 'histogram' || (family === 'summary' && m[2] !== 'bucket');
}
