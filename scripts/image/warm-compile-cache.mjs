// Fills Node's module compile cache (the directory NODE_COMPILE_CACHE names) at
// image build time, so the controller's first start in a container already
// finds V8's code for its modules instead of compiling them. It loads every
// compiled module under the directory given (dist/), and with it every package
// they import, wherever those are loaded (the webhook's are loaded only when it
// is enabled); dist/cli/bin.js and main.js run the CLI when loaded, so the
// Dockerfile runs `bin.js --version` for those two.
//
// The cache is keyed by each file's absolute path and contents, so it is filled
// where the files stay: in the runtime image, at /app.
import module from 'node:module';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const dist = process.argv[2];
if (!dist || !process.env.NODE_COMPILE_CACHE) {
  process.stderr.write('usage: NODE_COMPILE_CACHE=DIR node warm-compile-cache.mjs DIST\n');
  process.exit(2);
}
const runsTheCli = new Set(['cli/bin.js', 'cli/main.js']);
const files = readdirSync(dist, { recursive: true }).filter((f) => f.endsWith('.js') && !runsTheCli.has(f.split('\\').join('/')));
for (const f of files.sort()) await import(pathToFileURL(join(dist, f)).href);
module.flushCompileCache();
process.stdout.write(`compile cache: ${files.length} modules of ${dist} and their packages in ${process.env.NODE_COMPILE_CACHE}\n`);
