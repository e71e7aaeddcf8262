import { readdirSync, readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { errorMessage } from '../api/errors.js';

/**
 * The human-readable reports (`plan`, `reconcile --once`, `explain`) are
 * Handlebars templates in ./templates/: `NAME.hbs` is a report, `_NAME.hbs`
 * a partial the reports include as `{{> NAME}}`. Code builds a plain view
 * (every field present: `null`, never absent) and renders it here.
 *
 * Rendering is strict: a field the view does not have, or a block helper
 * (`if`, `unless`, `each`, `with`) given one, throws, naming the template,
 * so a misspelt field fails a test instead of printing nothing. Output is
 * terminal text: nothing is HTML-escaped. A report is returned without its
 * final newline (the caller prints it as a line); a partial used inside a
 * line ends with a `~}}` tag, which drops the newline after it.
 */
export const TEMPLATE_DIR = new URL('./templates/', import.meta.url);

/** Every report the folder holds; each is `TEMPLATE_DIR/<name>.hbs`. */
export const REPORT_TEMPLATES = ['plan', 'explain-pod', 'explain-clusterspiffeid'] as const;
type ReportTemplate = (typeof REPORT_TEMPLATES)[number];

/** A table for the `table` partial: rows of cells under a header, each column as wide as its widest cell. */
export interface TableView {
  header: string[];
  rows: string[][];
}

const readTemplate = (file: string): string => readFileSync(new URL(file, TEMPLATE_DIR), 'utf8');

function stringList(value: unknown, helper: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new Error(`${helper}: wants a list of strings, got ${JSON.stringify(value)}`);
  return value as string[];
}

/** A table's lines: columns two spaces apart, each padded to its widest cell, trailing spaces cut. */
export function alignColumns(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/** `1 conflict`, `2 conflicts`; `many` for a plural not made with -s. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The environment: the helpers, the strict block helpers and every partial of the folder. */
function createEnvironment(): typeof Handlebars {
  const env = Handlebars.create();
  for (const name of ['if', 'unless', 'each', 'with']) {
    const builtin = env.helpers[name] as (...args: unknown[]) => unknown;
    // Helper arguments are not looked up strictly by Handlebars itself; a view never holds undefined, so it means a wrong name.
    env.registerHelper(name, function (this: unknown, ...args: unknown[]) {
      if (args.length !== 2) throw new Error(`{{#${name}}} takes one value, got ${args.length - 1}`);
      if (args[0] === undefined) {
        const at = (args[1] as { loc?: { start: { line: number; column: number } } }).loc?.start;
        // Worded as Handlebars words a missing field: line:column in the template or the partial.
        throw new Error(`{{#${name}}} names a field the view does not have${at ? ` - ${at.line}:${at.column}` : ''}`);
      }
      return builtin.apply(this, args);
    });
  }
  env.registerHelper('join', (list: unknown, separator: unknown) => {
    if (typeof separator !== 'string') throw new Error('join: give a list and a separator');
    return stringList(list, 'join').join(separator);
  });
  env.registerHelper('columns', (header: unknown, rows: unknown) => {
    if (!Array.isArray(rows)) throw new Error(`columns: wants rows, got ${JSON.stringify(rows)}`);
    return alignColumns(
      stringList(header, 'columns'),
      rows.map((r) => stringList(r, 'columns')),
    );
  });
  env.registerHelper('plural', (...args: unknown[]) => {
    const [count, one, many] = args.slice(0, -1);
    if (typeof count !== 'number' || typeof one !== 'string' || (many !== undefined && typeof many !== 'string')) {
      throw new Error(`plural: give a count and a word (and its plural), got ${JSON.stringify(args.slice(0, -1))}`);
    }
    return many === undefined ? plural(count, one) : plural(count, one, many);
  });
  for (const file of readdirSync(TEMPLATE_DIR)) {
    if (file.startsWith('_') && file.endsWith('.hbs')) env.registerPartial(file.slice(1, -'.hbs'.length), readTemplate(file));
  }
  return env;
}

let environment: typeof Handlebars | undefined;
const compiled = new Map<ReportTemplate, Handlebars.TemplateDelegate>();

/** The report `name` rendered from `view`; each template is read and compiled once, at its first use. */
export function renderReport(name: ReportTemplate, view: object): string {
  environment ??= createEnvironment();
  let template = compiled.get(name);
  if (!template) {
    template = environment.compile(readTemplate(`${name}.hbs`), { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  try {
    return template(view).replace(/\n$/, '');
  } catch (err) {
    throw new Error(`report template ${name}.hbs: ${errorMessage(err)}`, { cause: err });
  }
}
