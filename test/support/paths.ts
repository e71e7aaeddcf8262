import { fileURLToPath } from 'node:url';

/** shared/ sits beside the repository clone, in development and in CI alike. */
export const sharedDir = fileURLToPath(new URL('../../../shared', import.meta.url));
export const wireFactsPath = `${sharedDir}/spire-api/wire-facts.json`;
