/**
 * The memory request bodies are read into: one buffer of fixed capacity,
 * allocated when first needed and kept, from which each body takes a
 * contiguous range and gives it back when it has been checked.
 *
 * Why not a buffer per body: a body is held across many reads, so a buffer
 * of its own (or the pieces it arrived in) outlives V8's young generation
 * and is freed only by a full collection, which V8 starts after another
 * 64 MiB of buffers has been allocated; and glibc keeps the freed memory of
 * such large buffers resident. Bodies read into ranges of one kept buffer
 * leave nothing behind: what the webhook holds for bodies is this buffer,
 * and its resident size is the most the bodies ever held at once.
 */

export interface SlabRange {
  readonly start: number;
  readonly size: number;
}

export class BodySlab {
  private buffer: Buffer | undefined;
  /** Free ranges, sorted by start, never adjacent (adjacent ones are merged). */
  private readonly free: { start: number; size: number }[];

  constructor(readonly capacity: number) {
    this.free = [{ start: 0, size: capacity }];
  }

  /** Bytes not in any range. */
  get available(): number {
    return this.free.reduce((n, f) => n + f.size, 0);
  }

  /** The lowest free range of `size` bytes, or undefined if no free range is that large. */
  take(size: number): SlabRange | undefined {
    const i = this.free.findIndex((f) => f.size >= size);
    if (i === -1) return undefined;
    const f = this.free[i]!;
    const range = { start: f.start, size };
    f.start += size;
    f.size -= size;
    if (f.size === 0) this.free.splice(i, 1);
    return range;
  }

  /**
   * `range` made `size` bytes long (larger), with its first `keep` bytes: in
   * place when the bytes after it are free, else moved (and those bytes
   * copied). Undefined, and `range` untouched, when there is no room.
   */
  grow(range: SlabRange, size: number, keep: number): SlabRange | undefined {
    const end = range.start + range.size;
    const next = this.free.findIndex((f) => f.start === end);
    const extra = size - range.size;
    if (next !== -1 && this.free[next]!.size >= extra) {
      const f = this.free[next]!;
      f.start += extra;
      f.size -= extra;
      if (f.size === 0) this.free.splice(next, 1);
      return { start: range.start, size };
    }
    const moved = this.take(size);
    if (!moved) return undefined;
    const buffer = this.bytes();
    buffer.copy(buffer, moved.start, range.start, range.start + keep);
    this.give(range);
    return moved;
  }

  /** Gives `range` back. */
  give(range: SlabRange): void {
    if (range.size === 0) return;
    let i = this.free.findIndex((f) => f.start > range.start);
    if (i === -1) i = this.free.length;
    this.free.splice(i, 0, { start: range.start, size: range.size });
    // Merge with the following range, then with the preceding one.
    const merge = (at: number) => {
      const a = this.free[at];
      const b = this.free[at + 1];
      if (a && b && a.start + a.size === b.start) {
        a.size += b.size;
        this.free.splice(at + 1, 1);
      }
    };
    merge(i);
    if (i > 0) merge(i - 1);
  }

  /** The bytes of `range`, `length` of them from its start. */
  view(range: SlabRange, length = range.size): Buffer {
    return this.bytes().subarray(range.start, range.start + length);
  }

  private bytes(): Buffer {
    // Not zero-filled: a range is read only as far as a body has been written into it.
    this.buffer ??= Buffer.allocUnsafeSlow(this.capacity);
    return this.buffer;
  }
}
