// tsc compiles src/ to dist/ but copies no other file: the report templates
// (src/cli/templates/*.hbs), read at run time beside the compiled code, are
// copied here. `npm run build` and the Dockerfile's build stage run it after tsc.
import { cpSync, rmSync } from 'node:fs';
import { URL } from 'node:url';

const from = new URL('../src/cli/templates/', import.meta.url);
const to = new URL('../dist/cli/templates/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
