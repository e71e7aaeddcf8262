#!/usr/bin/env node
/**
 * The `spire-reconciler` command (package.json "bin", and the image's
 * entrypoint): checks the Node version, turns on Node's module compile cache,
 * then runs the CLI. This file imports nothing statically, so it runs on any
 * Node: main.js pulls in undici, which under Node 20 fails as it loads with a
 * TypeError that never names the version. Here an old Node gets one line that
 * says what is needed instead, and exit 2 (the command could not run).
 *
 * Then `run`'s health probes start (early-probes.ts), before the CLI's code
 * loads, so that a restarted container answers the kubelet's first probe.
 *
 * The compile cache keeps V8's compiled code for every module loaded (ours and
 * node_modules') on disk, so later starts skip compiling them
 * (docs/performance.md "Small clusters"). Its directory is NODE_COMPILE_CACHE when set (the image points it
 * at a cache filled at build time), else Node's default under the OS temporary
 * directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off. A directory it cannot
 * create or write is skipped, not an error.
 */
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (!(major >= REQUIRED_MAJOR)) {
  process.stderr.write(
    `spire-reconciler needs Node ${REQUIRED_MAJOR} or newer (this is Node ${process.versions.node}); ` +
      'from a checkout, npm run cli -- <command> uses the Node 24 the dev dependency installs\n',
  );
  process.exit(2);
}
const { enableCompileCache } = await import('node:module');
enableCompileCache();
// `run`'s probes answer before the CLI has loaded (early-probes.ts); other commands start nothing there.
await (await import('./early-probes.js')).startEarlyProbes(process.argv.slice(2));
await import('./main.js');
