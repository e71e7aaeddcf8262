/**
 * Who may read a request body now: at most `reviews` requests at once, each
 * holding a range of the BodySlab (`bytes` in all) to read its body into.
 * A request with a Content-Length takes a range of that size before any of
 * its body is read, and waits in arrival order for it and for a turn; a
 * request without one starts with a small range that grows as its body
 * arrives, if the bytes are free at that moment (waiting mid-body could
 * leave every turn waiting on the others). At most `waiting` requests wait;
 * past them a request is turned away at once.
 *
 * The first in line waits until it fits, even if one behind it would fit
 * sooner: a large body is not passed over forever by small ones.
 */
import { BodySlab, type SlabRange } from './slab.js';

export interface GateLimits {
  /** Body bytes held at once, over every request holding a turn. */
  bytes: number;
  /** Requests holding a turn at once. */
  reviews: number;
  /** Requests waiting for a turn at once. */
  waiting: number;
}

/** The first range of a body without a length; it doubles as needed. */
export const UNKNOWN_LENGTH_START = 64 * 1024;

/** A turn, and the range its body is read into. */
export interface Pass {
  /** Bytes the range holds. */
  readonly capacity: number;
  /** Makes room for at least `size` bytes, keeping the first `keep`; false (and nothing changed) if the bytes are not free. */
  grow(size: number, keep: number): boolean;
  /** The first `length` bytes of the range. Valid until release(). */
  view(length?: number): Buffer;
  /** Gives the turn and its range back; later calls do nothing. */
  release(): void;
}

interface Waiter {
  bytes: number;
  grant: (pass: Pass) => void;
}

export class AdmissionGate {
  private holders = 0;
  private readonly slab: BodySlab;
  private readonly queue: Waiter[] = [];

  constructor(readonly limits: GateLimits) {
    this.slab = new BodySlab(limits.bytes);
  }

  /** Turns held, body bytes they hold, requests waiting. */
  get load(): { reviewing: number; bytes: number; waiting: number } {
    return { reviewing: this.holders, bytes: this.limits.bytes - this.slab.available, waiting: this.queue.length };
  }

  /**
   * A turn with a range of `declared` bytes (UNKNOWN_LENGTH_START when
   * undefined), once it fits; 'busy' at once when the queue is full or the
   * range could never fit; 'gone' when `signal` aborts (the client went
   * away) while it waits.
   */
  enter(declared: number | undefined, signal: AbortSignal): Promise<Pass | 'busy' | 'gone'> {
    const bytes = Math.min(declared ?? UNKNOWN_LENGTH_START, this.limits.bytes);
    if (signal.aborted) return Promise.resolve('gone');
    if ((declared ?? 0) > this.limits.bytes) return Promise.resolve('busy');
    if (this.queue.length === 0) {
      const pass = this.tryGrant(bytes);
      if (pass) return Promise.resolve(pass);
    }
    if (this.queue.length >= this.limits.waiting) return Promise.resolve('busy');
    return new Promise((resolve) => {
      const waiter: Waiter = {
        bytes,
        grant: (pass) => {
          signal.removeEventListener('abort', leave);
          resolve(pass);
        },
      };
      const leave = () => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        resolve('gone');
        // The one that left may have been first in line, holding back others that fit.
        this.admit();
      };
      signal.addEventListener('abort', leave, { once: true });
      this.queue.push(waiter);
    });
  }

  private tryGrant(bytes: number): Pass | undefined {
    if (this.holders >= this.limits.reviews) return undefined;
    const taken = this.slab.take(bytes);
    if (!taken) return undefined;
    this.holders++;
    let range: SlabRange = taken;
    let released = false;
    const slab = this.slab;
    return {
      get capacity() {
        return range.size;
      },
      grow: (size, keep) => {
        if (released) return false;
        if (size <= range.size) return true;
        const grown = slab.grow(range, size, keep);
        if (!grown) return false;
        range = grown;
        return true;
      },
      view: (length) => slab.view(range, length),
      release: () => {
        if (released) return;
        released = true;
        this.holders--;
        slab.give(range);
        this.admit();
      },
    };
  }

  /** Lets in, in order, those waiting that fit now. */
  private admit(): void {
    while (this.queue.length > 0) {
      const pass = this.tryGrant(this.queue[0]!.bytes);
      if (!pass) return;
      this.queue.shift()!.grant(pass);
    }
  }
}
