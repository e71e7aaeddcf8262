import { fileURLToPath } from 'node:url';

/**
 * SPIRE's wire facts (services, methods, messages, fields, enums), read off
 * spire-api-sdk at the commit named in the file's `commit` field. Kept in the
 * repository so a clone alone can check its protos against them.
 */
export const wireFactsPath = fileURLToPath(new URL('../../proto/wire-facts.json', import.meta.url));
