import type { ControllerConfig } from '../api/index.js';
import { requirePaths } from './paths.js';

/**
 * --manifests, else staticManifestPath; undefined means the live cluster.
 * A path that does not exist ends the command: read as an empty folder, it
 * would plan to delete every entry.
 */
export function manifestPaths(flag: string[] | undefined, config: ControllerConfig): string[] | undefined {
  if (flag && flag.length > 0) {
    requirePaths('--manifests', flag);
    return flag;
  }
  if (config.staticManifestPath) {
    requirePaths('staticManifestPath', config.staticManifestPath);
    return [config.staticManifestPath];
  }
  return undefined;
}
