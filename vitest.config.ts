import { configDefaults, defineConfig } from 'vitest/config';

// test/real-spire/ needs a real spire-server (`npm run test:real-spire` builds one and sets this).
const realSpire = process.env.SPIRE_CONFORMANCE_SERVER === 'real';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real API server lane needs Go-built binaries: `npm run test:real` (vitest.real.config.ts).
    // The slow fault scenarios (a controller process stopped and resumed; a minute of SPIRE answering in 2 s) run in `npm run test:faults`.
    exclude: [...configDefaults.exclude, 'test/real/**', 'test/e2e/**', 'test/**/*.slow.test.ts', ...(realSpire ? [] : ['test/real-spire/**'])],
    // Tests start real gRPC servers on Unix sockets; a generous timeout keeps a
    // loaded CI machine from turning slowness into failures. Nothing asserts speed.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
