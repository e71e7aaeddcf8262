/**
 * What each command loads at start, read from the bundle's chunks as
 * scripts/image/bundle.mjs splits them (esbuild, at every `await import()`):
 * a chunk is read only when an import of it runs, so what a command loads at
 * start is the chunks main.js and the command's chunk import statically.
 * Bundled here from the sources, whose imports are the compiled code's.
 */
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

let metafile: Metafile;
beforeAll(async () => {
  const result = await build({
    entryPoints: [join(repoRoot, 'src/cli/bin.ts')],
    outdir: join(repoRoot, 'dist-lazy-loading-test'),
    write: false,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    metafile: true,
    logLevel: 'silent',
  });
  metafile = result.metafile;
}, 60_000);

/** The inputs (source files and packages' files) of every chunk loaded at start by the chunk of `entry` and what it imports statically. */
function loadedAtStart(entry: string): string[] {
  const outputs = Object.entries(metafile.outputs);
  const start = outputs.find(([, o]) => o.entryPoint === entry);
  if (!start) throw new Error(`no chunk for ${entry}`);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of metafile.outputs[file]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(start[0]);
  return [...seen].flatMap((file) => Object.keys(metafile.outputs[file]!.inputs));
}

const packages = (inputs: string[]) => new Set(inputs.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1] ?? []));

describe('what a command loads at start', () => {
  it('run, with the webhook off and no manifests: no X.509 library, no undici, no client-node, no ajv, no template engine', () => {
    const inputs = [...loadedAtStart('src/cli/main.ts'), ...loadedAtStart('src/cli/run.ts')];
    const loaded = packages(inputs);
    for (const pkg of ['@peculiar/x509', 'asn1js', 'undici', '@kubernetes/client-node', 'ajv', 'handlebars']) expect(loaded, pkg).not.toContain(pkg);
    // What run does need is there: the check above is not vacuous.
    for (const pkg of ['@grpc/grpc-js', 'protobufjs', 'yaml', 'pino']) expect(loaded, pkg).toContain(pkg);
    const ours = inputs.filter((p) => p.startsWith('src/'));
    expect(ours.filter((p) => p.startsWith('src/webhook/') || p.startsWith('src/manifests/') || p.startsWith('src/x509/'))).toEqual([]);
    expect(ours).toContain('src/manager/live.ts');
  });

  it('the webhook, manifest mode and client-node kubeconfigs are chunks of their own, loaded when they run', () => {
    for (const entry of ['src/webhook/index.ts', 'src/cli/run-manifests.ts', 'src/kube/client-node-requests.ts']) expect(Object.values(metafile.outputs).some((o) => o.entryPoint === entry), entry).toBe(true);
    expect(packages(loadedAtStart('src/webhook/index.ts'))).toContain('@peculiar/x509');
    expect(packages(loadedAtStart('src/kube/client-node-requests.ts'))).toContain('undici');
  });

  it('bin.js, --version and --help: none of the commands, nothing of the controller', () => {
    expect(packages(loadedAtStart('src/cli/bin.ts'))).toEqual(new Set());
    const inputs = loadedAtStart('src/cli/main.ts');
    expect([...packages(inputs)]).toEqual(['commander']);
    expect(inputs.filter((p) => p.startsWith('src/manager/') || p.startsWith('src/kube/') || p.startsWith('src/spire/'))).toEqual([]);
  });
});
