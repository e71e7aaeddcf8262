import { defineConfig } from 'vitest/config';

/** The whole fault-scenario suite, the slow scenarios included (`npm run test:faults`). */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
