/**
 * Parse tree of a Go template, shaped like Go's text/template/parse nodes.
 * Variables are resolved at parse time to numbered slots (see parser.ts).
 */
import type { NumberConst } from './eval.js';

export type Node = TextNode | ActionNode | ControlNode | BreakNode | TemplateNode;

/** The variable slot a range's `{{break}}` and `{{continue}}` signal through, assigned once its body is parsed. */
export interface RangeControl {
  slot: number;
}

/** `{{break}}` or `{{continue}}` of the innermost enclosing range. */
export interface BreakNode {
  readonly kind: 'break' | 'continue';
  readonly pos: number;
  readonly control: RangeControl;
}

/** `{{template "name" pipeline}}`, and the invocation a `{{block}}` leaves in place. */
export interface TemplateNode {
  readonly kind: 'template';
  readonly pos: number;
  readonly name: string;
  readonly pipe: PipeNode | undefined;
}

/** One named template: the main one, or a `{{define}}` or `{{block}}`; each has its own variables. */
export interface Tree {
  readonly name: string;
  readonly root: readonly Node[];
  /** Number of variable slots the tree uses. */
  readonly slotCount: number;
  /** The slot holding `$` when the template assigns to it; -1 when `$` is always the data (@root). */
  readonly dollarSlot: number;
}

interface TextNode {
  readonly kind: 'text';
  readonly pos: number;
  readonly text: string;
}

/** `{{ pipeline }}`: prints the pipeline's value unless it declares variables. */
export interface ActionNode {
  readonly kind: 'action';
  readonly pos: number;
  readonly pipe: PipeNode;
}

/** A half-open range of variable slots. */
interface SlotRange {
  readonly lo: number;
  readonly hi: number;
}

/** `{{if}}`, `{{with}}` and `{{range}}`, with their optional `{{else}}` list. */
export interface ControlNode {
  readonly kind: 'if' | 'with' | 'range';
  readonly pos: number;
  readonly pipe: PipeNode;
  readonly list: readonly Node[];
  readonly elseList: readonly Node[] | undefined;
  /** Slots of the variables declared anywhere in the construct; they go out of scope at `{{end}}`. */
  readonly scope: SlotRange;
  /** Slots of the variables declared in the body; for range they go out of scope after each iteration. */
  readonly bodyScope: SlotRange;
  /** For a range whose body breaks or continues: the slot that signals it. */
  readonly control: RangeControl | undefined;
}

export interface Declaration {
  readonly name: string;
  readonly pos: number;
  readonly slot: number;
}

export interface PipeNode {
  readonly kind: 'pipe';
  readonly pos: number;
  readonly decl: readonly Declaration[];
  /** `$x = ...` rather than `$x := ...`. */
  readonly isAssign: boolean;
  readonly cmds: readonly CommandNode[];
}

export interface CommandNode {
  readonly kind: 'command';
  readonly pos: number;
  readonly args: readonly Operand[];
}

export type Operand =
  | FieldNode
  | ChainNode
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode;

/** `.A.B.C` evaluated from dot. */
interface FieldNode {
  readonly kind: 'field';
  readonly pos: number;
  readonly idents: readonly string[];
}

/** `(pipeline).A.B` or `fn.A`: fields of a value that is not dot or a variable. */
export interface ChainNode {
  readonly kind: 'chain';
  readonly pos: number;
  readonly node: Operand;
  readonly fields: readonly string[];
}

/** A function name. */
export interface IdentifierNode {
  readonly kind: 'identifier';
  readonly pos: number;
  readonly name: string;
}

/** `$`, `$x`, `$x.A.B`. */
export interface VariableNode {
  readonly kind: 'variable';
  readonly pos: number;
  readonly name: string;
  /** -1 for `$` read from @root (the data passed to the tree); otherwise the slot holding the variable. */
  readonly slot: number;
  readonly fields: readonly string[];
}

interface DotNode {
  readonly kind: 'dot';
  readonly pos: number;
}

interface NilNode {
  readonly kind: 'nil';
  readonly pos: number;
}

interface BoolNode {
  readonly kind: 'bool';
  readonly pos: number;
  readonly value: boolean;
}

/** A numeric constant (a number, rune or complex literal), with every type it fits, as Go's NumberNode. */
export interface NumberNode {
  readonly kind: 'number';
  readonly pos: number;
  readonly text: string;
  readonly num: NumberConst;
}

interface StringNode {
  readonly kind: 'string';
  readonly pos: number;
  /** As written, quotes included. */
  readonly quoted: string;
  readonly text: string;
}

/** The node as Go's String() methods print it; used as the context of error messages. */
export function nodeString(node: Operand | CommandNode | ActionNode): string {
  switch (node.kind) {
    case 'field':
      return `.${node.idents.join('.')}`;
    case 'chain': {
      const base = node.node.kind === 'pipe' ? `(${nodeString(node.node)})` : nodeString(node.node);
      return `${base}.${node.fields.join('.')}`;
    }
    case 'identifier':
      return node.name;
    case 'variable':
      return node.fields.length > 0 ? `${node.name}.${node.fields.join('.')}` : node.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return node.value ? 'true' : 'false';
    case 'number':
      return node.text;
    case 'string':
      return node.quoted;
    case 'pipe': {
      const decl =
        node.decl.length > 0 ? `${node.decl.map((d) => d.name).join(', ')} ${node.isAssign ? '=' : ':='} ` : '';
      return decl + node.cmds.map(nodeString).join(' | ');
    }
    case 'command':
      return node.args.map((a) => (a.kind === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'action':
      return `{{${nodeString(node.pipe)}}}`;
  }
}
