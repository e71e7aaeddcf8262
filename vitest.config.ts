import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real gRPC servers on Unix sockets; a generous timeout keeps a
    // loaded CI machine from turning slowness into failures. Nothing asserts speed.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
