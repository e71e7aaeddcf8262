/**
 * Reading one request body into the range of its turn (see AdmissionGate),
 * by a deadline.
 */
import type { IncomingMessage } from 'node:http';
import type { Pass } from './gate.js';
import { noteBodyBytes } from './young-garbage.js';

/**
 * What came of reading: the body, a view of the turn's range (valid until
 * the turn is released); or why it was not kept, after which nothing more of
 * it is kept:
 * - 'too-large': over `maxBytes` (a body without a length, counted);
 * - 'over-budget': a body without a length outgrew its range, and the bytes
 *   to grow it were not free;
 * - 'timeout': not all there by the deadline;
 * - 'gone': the client went away.
 */
type BodyOutcome = { body: Buffer } | { refused: 'too-large' | 'over-budget' | 'timeout' | 'gone' };

/**
 * Reads `req`'s body into `pass`. Node's parser ends a body with a
 * Content-Length there, and the range already holds that many bytes; a body
 * without one makes its range grow as it arrives (doubling, or just enough
 * when doubling does not fit). Each piece is
 * copied as it arrives, so that the piece is garbage at once.
 */
export function readBody(req: IncomingMessage, pass: Pass, opts: { maxBytes: number; deadlineMs: number }): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    let size = 0;
    const finish = (outcome: BodyOutcome) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      noteBodyBytes(chunk.length);
      const end = size + chunk.length;
      if (end > opts.maxBytes) return finish({ refused: 'too-large' });
      if (end > pass.capacity && !pass.grow(Math.min(Math.max(end, 2 * pass.capacity), opts.maxBytes), size) && !pass.grow(end, size)) {
        return finish({ refused: 'over-budget' });
      }
      chunk.copy(pass.view(), size);
      size = end;
    };
    const onEnd = () => finish({ body: pass.view(size) });
    const onClose = () => finish({ refused: 'gone' });
    const timer = setTimeout(() => finish({ refused: 'timeout' }), opts.deadlineMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
}

/**
 * Reads the rest of `req`'s body and throws it away; settles once it has
 * ended or the connection has closed. Answering a client while it still
 * sends, then closing, would reset the connection under its feet before it
 * could read the answer. Node's requestTimeout bounds how long this lasts.
 */
export function discardBody(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded || req.destroyed) return resolve();
    req.once('end', resolve);
    req.once('close', resolve);
    req.on('data', (chunk: Buffer) => noteBodyBytes(chunk.length));
    req.resume();
  });
}
