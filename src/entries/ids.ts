import { v4 as uuidv4 } from 'uuid';

/**
 * The ID a new entry gets: the prefix, then a random (version 4) UUID, as
 * spire-controller-manager makes them (it uses google/uuid's NewString). The
 * project's `uuid` dependency makes it, so the IDs' form is that library's
 * contract rather than a runtime's.
 */
export function newEntryId(prefix: string): string {
  return `${prefix}${uuidv4()}`;
}
