import { defineConfig } from 'vitest/config';

/**
 * `npm run test:e2e`: the whole path on a real node (scripts/e2e/test.sh builds
 * the binaries and images first). Each file starts its own control plane, node
 * (and SPIRE pods, or a Deployment); files run one at a time on two cores.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
