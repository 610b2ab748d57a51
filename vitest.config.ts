import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './tests/support/slow-files-first.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The user's RUNLEDGER_* variables must not reach the CLIs the tests spawn.
    // The shared helpers' clean-up (temp dirs, CLI servers) runs when each file ends: tests/support/at-file-end.ts.
    setupFiles: ['tests/support/isolate-env.ts', 'tests/support/file-end-hook.ts'],
    // Files share a worker's loaded modules instead of loading src/ and its dependencies again for each of 200 files
    // (vitest's "import" time: 392 s summed over a run with isolation, 55 s without). Each file still gets a clean
    // RUNLEDGER_* environment (isolate-env.ts runs before every file) and its helpers' clean-up (file-end-hook.ts);
    // nothing in src/ keeps state at module level that one ledger could leak into another. A helper module's
    // top-level afterAll would run for the first file only: register clean-up with atFileEnd instead.
    isolate: false,
    // A private TMPDIR for the run; the run fails when a test leaves something in it. One Chromium for the browser files.
    // One packed tarball for the packaging files, made by the first that asks.
    globalSetup: ['tests/support/private-tmpdir.ts', 'tests/support/shared-chromium.ts', 'tests/support/shared-pack.ts'],
    // End-to-end tests spawn real processes; on a loaded 2-core machine one CLI call can take a second, and
    // with files side by side a test that starts a dozen of them can take more than a minute.
    // These are hang guards, not speed checks (speed is measured by `npm run bench`).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Vitest's default is one worker per core but one, so a 2-core CI machine ran one file at a time while the
    // e2e files mostly wait on the processes they spawn (CLI start-up, commands that sleep, leases running out).
    // Files side by side are safe: each makes its own mkdtemp dirs and rl_test_<random> PostgreSQL schemas, servers
    // listen on port 0, and no test writes into the checkout. VITEST_MAX_WORKERS=1 brings back one at a time.
    maxWorkers: Math.max(3, availableParallelism()),
    // The longest files start first, so none of them starts late and holds the run open alone.
    sequence: { sequencer: SlowFilesFirst },
  },
});
