#!/usr/bin/env node
/**
 * The `spire-reconciler` command (package.json "bin"): checks the Node version,
 * then runs the CLI. This file imports nothing statically, so it runs on any
 * Node: main.js pulls in undici, which under Node 20 fails as it loads with a
 * TypeError that never names the version. Here an old Node gets one line that
 * says what is needed instead, and exit 2 (the command could not run).
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
await import('./main.js');
