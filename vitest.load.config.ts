import { defineConfig } from 'vitest/config';

/** `npm run test:load`: the load tests, kept out of the default suite because they take a minute on a loaded machine. */
export default defineConfig({
  test: {
    include: ['tests/load/**/*.load.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
