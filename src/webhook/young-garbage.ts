/**
 * Young collections asked for while request bodies are read and checked.
 *
 * Node hands a TLS connection's data over in pieces of at most 16 KiB, each
 * a Buffer of its own, allocated by malloc outside V8's heap. The webhook
 * copies each piece into its slab at once, or throws it away, so the pieces
 * die young; but V8 collects its young generation when that fills with
 * objects, and a piece puts only a few hundred bytes of objects there, so
 * dead pieces pile up until then, or until the full collection V8 starts
 * once 64 MiB more of such memory has been allocated, and are resident
 * meanwhile: a flood of bodies read and thrown away raises the resident
 * size by the pieces it leaves. Checking a large body leaves young garbage
 * of its size too (the decoded text, the parsed object).
 *
 * So, when the process runs with --expose-gc (the image's entrypoint sets
 * it), a young collection is asked for after every YOUNG_COLLECTION_EVERY
 * bytes of request bodies read (kept or thrown away) or checked. It frees
 * the dead pieces, and is short: it collects the young generation only, at
 * most 16 MiB under the image's flags (docs/webhook.md, "Memory under a
 * flood of requests", has the figures and how often to ask). Reviews of a few
 * KiB, the API server's usual, ask for one in hundreds of requests. Without
 * the flag nothing is asked for, and the pieces wait for V8's own
 * collections.
 */

const YOUNG_COLLECTION_EVERY = 2 * 1024 * 1024;

let sinceCollection = 0;

/** Counts `n` more bytes of request bodies read or checked; every YOUNG_COLLECTION_EVERY of them, asks for a young collection. */
export function noteBodyBytes(n: number): void {
  sinceCollection += n;
  if (sinceCollection < YOUNG_COLLECTION_EVERY) return;
  sinceCollection = 0;
  globalThis.gc?.({ type: 'minor' });
}
