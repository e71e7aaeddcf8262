import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real API server lane needs Go-built binaries: `npm run test:real` (vitest.real.config.ts).
    exclude: [...configDefaults.exclude, 'test/real/**'],
    // Tests start real gRPC servers on Unix sockets; a generous timeout keeps a
    // loaded CI machine from turning slowness into failures. Nothing asserts speed.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
