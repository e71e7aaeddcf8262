/**
 * What the benchmarks on the e2e lane's real node share: the check that the
 * machine can run one, a control plane and a node for the measurement (both
 * stopped however it ends), and the results file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ControlPlane, startControlPlane } from '../test/support/real-k8s/index.js';
import { nodeUnavailable, type RealNode, startNode } from '../test/support/real-node/node.js';
import { imagesMissing, versionsLine } from '../test/e2e/world.js';

/** Runs `measure` on a new control plane and node, printing the versions first; exits 2 where the machine cannot. */
export async function onRealNode<T>(name: string, measure: (plane: ControlPlane, node: RealNode) => Promise<T>): Promise<{ result: T; versions: string }> {
  const missing = nodeUnavailable() ?? imagesMissing();
  if (missing) {
    console.error(`${name}: cannot run: ${missing}`);
    process.exit(2);
  }
  const plane = await startControlPlane();
  const node = await startNode(plane).catch(async (err: unknown) => {
    await plane.stop();
    throw err;
  });
  const versions = versionsLine(plane, node);
  try {
    console.log(`${name}: ${versions}`);
    return { result: await measure(plane, node), versions };
  } finally {
    await node.stop();
    await plane.stop();
  }
}

/** Writes the results as JSON to `out`, or to bench/results/<time>-<kind>.json; returns the path. */
export function writeResults(kind: string, out: string | undefined, results: object): string {
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const path = out ?? join(resultsDir, `${new Date().toISOString().replace(/:/g, '-').slice(0, 19)}-${kind}.json`);
  writeFileSync(path, `${JSON.stringify(results, null, 1)}\n`);
  return path;
}
