// @ts-check
import { readdirSync } from 'node:fs';
import { URL } from 'node:url';
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The module map of ARCHITECTURE.md, checked: each folder under src/ may
 * import only the folders listed here (and npm packages). Imports point one
 * way, from the edges (cli/, manager/, webhook/) down to the leaves; an
 * import against the map fails `npm run lint`, and so `npm test`.
 */
const MAY_IMPORT = {
  // Leaves: no folder of ours.
  gen: [],
  net: [],
  x509: [],
  spiffe: [],
  template: [],
  // The CRD and Kubernetes types, the config, the objects a pass reads and the problems it reports.
  api: [],
  spire: ['gen', 'api', 'spiffe', 'net', 'x509'],
  workloadapi: ['gen', 'api', 'spire', 'spiffe', 'net', 'x509'],
  manifests: ['api', 'spiffe', 'template'],
  kube: ['api', 'net', 'template'],
  entries: ['api', 'spire', 'spiffe', 'template', 'net'],
  federation: ['api', 'spire', 'spiffe', 'net', 'x509'],
  memspire: ['gen', 'api', 'spire', 'workloadapi', 'spiffe', 'net', 'x509'],
  webhook: ['api', 'spire', 'kube', 'manifests', 'entries', 'federation', 'spiffe', 'net', 'x509', 'template'],
  manager: ['api', 'spire', 'workloadapi', 'kube', 'manifests', 'entries', 'federation', 'spiffe', 'net', 'template'],
  cli: ['gen', 'api', 'spire', 'workloadapi', 'kube', 'manifests', 'entries', 'federation', 'memspire', 'webhook', 'manager', 'spiffe', 'net', 'x509', 'template'],
};
const FOLDERS = Object.keys(MAY_IMPORT);
// A new folder goes on the map before anything may import it.
const unmapped = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory() && !FOLDERS.includes(d.name));
if (unmapped.length > 0) throw new Error(`src/${unmapped[0].name}/ is not on the module map: add it to MAY_IMPORT in eslint.config.js and to ARCHITECTURE.md`);

const moduleMap = Object.entries(MAY_IMPORT).map(([folder, allowed]) => {
  const denied = FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
  const patterns = [];
  if (denied.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+(${denied.join('|')})/`,
      message: `src/${folder}/ may import only ${allowed.length > 0 ? allowed.map((f) => `src/${f}/`).join(', ') : 'npm packages'} (the module map in ARCHITECTURE.md and eslint.config.js).`,
    });
  }
  // The Reflect polyfill must load before @peculiar/x509: only src/x509/ imports it.
  if (folder !== 'x509') patterns.push({ group: ['@peculiar/x509'], message: 'import X.509 through src/x509/ (it loads reflect-metadata first).' });
  return { files: [`src/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/gen/**', 'coverage/**', 'bench/results/**', '.bench/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  ...moduleMap,
);
