import { describe, expect, it } from 'vitest';
import { detectClusterDomain } from '../../src/manager/cluster-domain.js';

describe('the cluster domain is detected as upstream detects it', () => {
  it('strips kubernetes.default.svc. and the trailing dot from the CNAME', async () => {
    expect(await detectClusterDomain(async () => ['kubernetes.default.svc.cluster.local.'])).toBe('cluster.local');
    expect(await detectClusterDomain(async () => ['kubernetes.default.svc.corp.example'])).toBe('corp.example');
  });

  it('gives nothing (not an error) when there is no CNAME', async () => {
    expect(
      await detectClusterDomain(async () => {
        throw Object.assign(new Error('queryCname ENODATA'), { code: 'ENODATA' });
      }),
    ).toBeUndefined();
    expect(await detectClusterDomain(async () => ['elsewhere.example.'])).toBeUndefined();
  });
});
