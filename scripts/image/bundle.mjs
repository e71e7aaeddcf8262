// Bundles DIST/cli/bin.js and main.js (compiled by `npm run build`) with
// every module they load, ours and node_modules' (esbuild, from the npm
// registry: its binary is the @esbuild/<platform> package), into OUT/cli
// (OUT is DIST unless given: in place): bin.js, main.js and chunks beside
// them, bundle-*.js, with the report templates. Node then reads and compiles
// a few files instead of thousands, and code the CLI never reaches (most of
// client-node's generated API) is left out (docs/performance.md "Small
// clusters"). OUT holds all the CLI runs: the image copies it and no
// node_modules.
//
// Split at every `await import()`: what a module imports that way (a command,
// the webhook, manifest mode, client-node and undici for a kubeconfig only
// client-node reads) is a chunk of its own, read from disk only when that
// import runs, so `run` with the default config neither reads nor keeps the
// code of the other commands and modes. Nothing is left out of the bundle:
// the image ships no node_modules.
// bin.js, which checks the Node version first, imports nothing else
// statically: its chunks are loaded after the check, so it still runs on any
// Node.
//
// The chunks sit where main.js was, so paths our modules take from
// import.meta.url (../../proto, ../../package.json, ../../crds, ./templates/)
// still resolve: every compiled module of ours is one folder below DIST.
// Packages' CommonJS code gets `require` from the banner.
//
// Node's own modules are required, not imported, in the bundle: an ESM import
// of a builtin builds its namespace from every export, running the lazy
// getters a require leaves alone. `import ... from 'node:http'` so loads
// Node's internal copy of undici (http exports WebSocket and its events):
// 45-58 CPU-ms and 13 MiB resident against 4-6 ms and none when required
// (Node 24.21, `node --input-type=module -e "await import('node:http')"`).
import { build } from 'esbuild';
import { builtinModules } from 'node:module';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const BUILTINS = new Set(builtinModules);

/** Every static import of a Node builtin (`node:x` or `x`) becomes a module that requires it. */
const requireBuiltins = {
  name: 'require-builtins',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z0-9_/]+$/ }, ({ path, kind }) => {
      const name = path.replace(/^node:/, '');
      if (!BUILTINS.has(name) || kind !== 'import-statement') return undefined;
      return { path: name, namespace: 'required-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, ({ path }) => ({ contents: `module.exports = require('node:${path}');`, loader: 'js' }));
  },
};

const [dist, out = dist] = process.argv.slice(2);
if (!dist) {
  process.stderr.write('usage: node bundle.mjs DIST [OUT]\n');
  process.exit(2);
}
const cli = join(out, 'cli');
mkdirSync(cli, { recursive: true });
// A previous bundle's chunks: their names carry a hash of their content, so a new bundle would leave them beside its own.
for (const file of readdirSync(cli)) if (file.startsWith('bundle-')) rmSync(join(cli, file));
if (out !== dist) cpSync(join(dist, 'cli/templates'), join(cli, 'templates'), { recursive: true });
const result = await build({
  entryPoints: [join(dist, 'cli/bin.js'), join(dist, 'cli/main.js')],
  outdir: cli,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'bundle-[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node24',
  banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [requireBuiltins],
});
const inputs = Object.keys(result.metafile.inputs).length;
const outputs = Object.keys(result.metafile.outputs).length;
process.stdout.write(`bundled ${inputs} modules into ${cli}: bin.js, main.js and ${outputs - 2} chunks\n`);
