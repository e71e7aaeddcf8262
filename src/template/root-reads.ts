/**
 * The walk fields.ts and reads.ts share: every place a template reads the
 * root data (the template data its main tree runs on), found from the parse
 * tree without data.
 *
 * The root data is dot in a tree that starts with it, outside `with` and
 * `range` bodies (whose dot is the pipeline's value; their `{{else}}` keeps
 * the dot it had), and `$` (slot -1) wherever it appears. Other variables and
 * the results of functions and methods hold values computed from the root
 * data, which the visitor has already seen being read.
 */
import type { Node, Operand, PipeNode } from './ast.js';

interface RootReadVisitor {
  /** A field chain from the root data: `.A.B` (from `''`) or `$.A.B` (from `'$'`; no names for `$` alone). */
  chain(from: '' | '$', idents: readonly string[]): void;
  /** Dot used as a value where it is the root data (`{{ . }}`, `{{ with . }}`). */
  dot(): void;
}

/** Visits the reads of the root data in `nodes`, where dot is the root data when `dotIsRoot`. */
export function visitRootReads(nodes: readonly Node[], dotIsRoot: boolean, visitor: RootReadVisitor): void {
  for (const node of nodes) {
    switch (node.kind) {
      case 'action':
        visitPipe(node.pipe, dotIsRoot, visitor);
        break;
      case 'if':
        visitPipe(node.pipe, dotIsRoot, visitor);
        visitRootReads(node.list, dotIsRoot, visitor);
        visitRootReads(node.elseList ?? [], dotIsRoot, visitor);
        break;
      case 'with':
      case 'range':
        // The body's dot is the pipeline's value; `else` runs with dot unchanged.
        visitPipe(node.pipe, dotIsRoot, visitor);
        visitRootReads(node.list, false, visitor);
        visitRootReads(node.elseList ?? [], dotIsRoot, visitor);
        break;
      case 'template':
        // The invoked tree's dot (and `$`) is this pipeline's value, read here.
        if (node.pipe) visitPipe(node.pipe, dotIsRoot, visitor);
        break;
      case 'text':
      case 'break':
      case 'continue':
        break;
    }
  }
}

function visitPipe(p: PipeNode, dotIsRoot: boolean, visitor: RootReadVisitor): void {
  for (const cmd of p.cmds) for (const arg of cmd.args) visitOperand(arg, dotIsRoot, visitor);
}

function visitOperand(o: Operand, dotIsRoot: boolean, visitor: RootReadVisitor): void {
  switch (o.kind) {
    case 'field':
      if (dotIsRoot) visitor.chain('', o.idents);
      break;
    case 'dot':
      if (dotIsRoot) visitor.dot();
      break;
    case 'variable':
      if (o.slot === -1) visitor.chain('$', o.fields);
      break;
    case 'chain':
      visitOperand(o.node, dotIsRoot, visitor);
      break;
    case 'pipe':
      visitPipe(o, dotIsRoot, visitor);
      break;
    default:
      break;
  }
}
