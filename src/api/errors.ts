/**
 * The text of a thrown value, for a message shown to a person (a field
 * problem, a status, an admission denial). Logs take the error itself
 * (`log.warn({ err }, ...)`), so that its stack and cause stay with it.
 * Anything may be thrown, not only an Error, so this never assumes one.
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
