/**
 * validate checks a config wherever it is: a ControllerManagerConfig file,
 * or one embedded in a ConfigMap (deploy/configmap.yaml); and refuses a
 * --config that is neither.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validatePaths } from '../../src/cli/validate.js';
import { exitCode, repoRoot, spawnCli } from '../support/cli.js';

describe('validate and the config inside a ConfigMap', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'validate-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('checks the config deploy/configmap.yaml embeds, naming the ConfigMap and its key, with warnings beside errors', async () => {
    const deployed = join(repoRoot, 'deploy/configmap.yaml');
    expect(await validatePaths([deployed])).toEqual({ lines: [], errors: 0 });
    const broken = join(dir, 'configmap.yaml');
    writeFileSync(broken, readFileSync(deployed, 'utf8').replace('trustDomain: example.org', 'trustDomain: Example_ORG\n    gcIntervl: 10s'));
    const at = `${broken}: ConfigMap/spire-reconciler-config: data[config.yaml]: ControllerManagerConfig`;
    expect(await validatePaths([broken])).toEqual({
      errors: 1,
      lines: [
        `${at}: trustDomain: trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores`,
        `warning: ${broken}: ConfigMap/spire-reconciler-config: data[config.yaml]: gcIntervl: unknown field, ignored (did you mean gcInterval?)`,
      ],
    });
  });

  it('validate --config takes a ConfigMap holding the config, and refuses a file that holds none', async () => {
    const ok = spawnCli(['validate', '--config', join(repoRoot, 'deploy/configmap.yaml')]);
    expect(await exitCode(ok)).toBe(0);
    writeFileSync(join(dir, 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n');
    const refused = spawnCli(['validate', '--config', join(dir, 'pod.yaml'), join(repoRoot, 'examples/demo/manifests')]);
    expect(await exitCode(refused)).toBe(2);
    expect(refused.output().trim()).toBe(`spire-reconciler: --config ${join(dir, 'pod.yaml')}: not a ControllerManagerConfig (kind: ControllerManagerConfig), nor a ConfigMap holding one`);
  });

  it('says each problem once: an empty required field is one line, not "must be a string" and "is required"', async () => {
    writeFileSync(join(dir, 'config.yaml'), 'apiVersion: spire.spiffe.io/v1alpha1\nkind: ControllerManagerConfig\ntrustDomain: ${TD}\nclusterName: c\n');
    expect(await validatePaths([join(dir, 'config.yaml')], { expandEnv: true })).toEqual({
      errors: 1,
      lines: [`${join(dir, 'config.yaml')}: ControllerManagerConfig: trustDomain: is required`, `warning: ${join(dir, 'config.yaml')}: $TD is not set: --expand-env replaced it with ""`],
    });
  });
});
