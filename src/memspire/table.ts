import { Code, RpcFailure } from './status.js';

export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

/**
 * A table with hidden, never-reused row IDs, as SPIRE's SQL tables have. Rows
 * keep creation order; page tokens are row IDs, so deletes between page calls
 * cause neither skips nor repeats (spire-semantics §1.4).
 */
export class RowTable<T> {
  // Index = row ID - 1; a deleted row leaves a hole so later rows keep their IDs.
  private readonly rows: (T | undefined)[] = [];
  private live = 0;

  insert(value: T): number {
    this.rows.push(value);
    this.live++;
    return this.rows.length;
  }

  replace(row: number, value: T): void {
    if (this.rows[row - 1] === undefined) throw new Error(`row ${row} is not live`);
    this.rows[row - 1] = value;
  }

  delete(row: number): void {
    if (this.rows[row - 1] !== undefined) {
      this.rows[row - 1] = undefined;
      this.live--;
    }
  }

  get size(): number {
    return this.live;
  }

  *scan(afterRow = 0): Generator<[number, T]> {
    for (let i = afterRow; i < this.rows.length; i++) {
      const v = this.rows[i];
      if (v !== undefined) yield [i + 1, v];
    }
  }

  /**
   * One page. `accept` is the filter the database applies before LIMIT;
   * `post`, when given, is applied after each page is read, and reading goes
   * on while a read page filters down to nothing, as SPIRE's EXACT and SUBSET
   * selector matches do. `what` names the list in the token error.
   */
  page(pageSize: number, token: string, what: string, accept: (v: T) => boolean, post?: (v: T) => boolean): Page<T> {
    if (pageSize <= 0) {
      const items: T[] = [];
      for (const [, v] of this.scan()) if (accept(v) && (!post || post(v))) items.push(v);
      return { items, nextPageToken: '' };
    }
    let after = parseToken(token, what);
    for (;;) {
      const read: T[] = [];
      let lastRow = 0;
      for (const [row, v] of this.scan(Math.min(after, this.rows.length))) {
        if (!accept(v)) continue;
        read.push(v);
        lastRow = row;
        if (read.length === pageSize) break;
      }
      if (read.length === 0) return { items: [], nextPageToken: '' };
      const items = post ? read.filter(post) : read;
      if (items.length > 0 || !post) return { items, nextPageToken: String(lastRow) };
      after = lastRow;
    }
  }
}

/** SPIRE parses tokens with strconv.ParseUint(token, 10, 32): digits only, at most 2^32-1. */
function parseToken(token: string, what: string): number {
  if (token === '') return 0;
  if (!/^[0-9]+$/.test(token) || Number(token) > 0xffff_ffff) {
    throw new RpcFailure(Code.INTERNAL, `failed to list ${what}: could not parse token '${token}'`);
  }
  return Number(token);
}
