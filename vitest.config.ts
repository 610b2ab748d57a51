import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The user's RUNLEDGER_* variables must not reach the CLIs the tests spawn.
    setupFiles: ['tests/support/isolate-env.ts'],
    // End-to-end tests spawn real processes; on a loaded 2-core machine one CLI call can take a second.
    // These are hang guards, not speed checks (speed is measured by `npm run bench`).
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
