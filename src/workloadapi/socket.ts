import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/** The environment variable the SPIFFE Workload API specification names for the agent's address. */
const ENDPOINT_ENV = 'SPIFFE_ENDPOINT_SOCKET';

/**
 * The Workload API socket to dial: `configured` (`workloadAPISocketPath`)
 * when set, else SPIFFE_ENDPOINT_SOCKET. Both take `unix:///abs/path`,
 * `unix:/abs/path` or `/abs/path`; the specification's `tcp://` form is
 * refused (a SPIRE agent serves the Workload API on a Unix socket only).
 * Returns the gRPC target and the file path.
 */
export function workloadApiSocket(configured?: string, env: NodeJS.ProcessEnv = process.env): { target: string; path: string } {
  const given = configured ?? env[ENDPOINT_ENV];
  const from = configured !== undefined ? 'workloadAPISocketPath' : ENDPOINT_ENV;
  if (given === undefined || given === '') {
    throw new Error(`no Workload API socket: set workloadAPISocketPath or ${ENDPOINT_ENV} to the SPIRE agent's socket (unix:///path or /path)`);
  }
  let path = given;
  if (path.startsWith('unix://')) path = path.slice('unix://'.length);
  else if (path.startsWith('unix:')) path = path.slice('unix:'.length);
  if (path === '' || !isAbsolute(path)) {
    throw new Error(`${from} "${given}" must be an absolute path or unix:///absolute/path (the SPIRE agent's Workload API socket)`);
  }
  return { target: `unix://${path}`, path };
}

/** What is at a socket path, as far as the file system can tell without connecting. */
type SocketState = 'socket' | 'absent' | 'not-a-socket' | 'no-permission';

export function socketState(path: string): SocketState {
  try {
    return statSync(path).isSocket() ? 'socket' : 'not-a-socket';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EACCES' ? 'no-permission' : 'absent';
  }
}
