// Replaces DIST/cli/main.js (compiled by `npm run build`) with one file holding
// it and every module it loads, ours and node_modules' (esbuild, from the npm
// registry: its binary is the @esbuild/<platform> package). Node then reads
// and compiles one file instead of thousands, and code the CLI never reaches
// (most of client-node's generated API) is left out: a start costs less CPU
// and memory (docs/performance.md "Small clusters").
// DIST/cli/bin.js, which checks the Node version first, stays apart and loads it.
//
// The bundle sits where main.js was, so paths our modules take from
// import.meta.url (../../proto, ../../package.json, ../../crds) still resolve:
// every compiled module of ours is one folder below DIST. Packages' CommonJS
// code gets `require` from the banner; node_modules stays in the image for
// what they load by path at run time, and for client-node: our modules import
// it only where a path needs it (`await import()`), which a bundle cannot cut
// down to what is used, so it stays a package loaded from node_modules then.
import { build } from 'esbuild';
import { join } from 'node:path';
import process from 'node:process';

const dist = process.argv[2];
if (!dist) {
  process.stderr.write('usage: node bundle.mjs DIST\n');
  process.exit(2);
}
const main = join(dist, 'cli/main.js');
const result = await build({
  entryPoints: [main],
  outfile: main,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: ['@kubernetes/client-node'],
  banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
const inputs = Object.keys(result.metafile.inputs).length;
process.stdout.write(`bundled ${inputs} modules into ${main}\n`);
