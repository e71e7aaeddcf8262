import { defineConfig } from 'vitest/config';

/**
 * `npm run test:real`: the lane against a real kube-apiserver and etcd
 * (scripts/real-k8s/build.sh builds them; test/support/real-k8s/ starts them).
 * Each file starts its own control plane, and files run one at a time: two
 * API servers, two controllers and SPIRE at once would crowd two cores.
 */
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    globalSetup: ['test/real/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
