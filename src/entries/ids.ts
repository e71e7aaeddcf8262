import { v4 as uuidv4 } from 'uuid';

/**
 * The ID a new entry gets: the prefix, then a random (version 4) UUID in its
 * lowercase hyphenated form, as spire-controller-manager makes them (google/
 * uuid's NewString), so the IDs of both controllers look alike.
 */
export function newEntryId(prefix: string): string {
  return `${prefix}${uuidv4()}`;
}
