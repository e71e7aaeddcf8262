import { isAbsolute } from 'node:path';

export const DEFAULT_SOCKET = '/spire-server/api.sock';

/**
 * Accepts `unix:///abs/path`, `unix:/abs/path` or `/abs/path`, as
 * spire-controller-manager's `spireServerSocketPath` does, and returns the
 * gRPC target and the file path. A relative path is refused: the process's
 * working directory is no place to look for a sidecar's socket.
 */
export function parseSocket(socket: string): { target: string; path: string } {
  let path = socket;
  if (path.startsWith('unix://')) path = path.slice('unix://'.length);
  else if (path.startsWith('unix:')) path = path.slice('unix:'.length);
  if (path === '' || !isAbsolute(path)) {
    throw new Error(`SPIRE socket "${socket}" must be an absolute path or unix:///absolute/path`);
  }
  return { target: `unix://${path}`, path };
}
