// proto-loader-gen-types writes extensionless relative imports; NodeNext
// resolution needs explicit `.js` specifiers, so add them after generation.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith('.ts')) {
      const src = readFileSync(path, 'utf8');
      const out = src.replace(/from '(\.{1,2}\/[^']+?)(?<!\.js)'/g, "from '$1.js'");
      if (out !== src) writeFileSync(path, out);
    }
  }
}
walk(process.argv[2] ?? 'src/gen');
