// Clean-up that shared test helpers owe the file that used them (its temp dirs, its CLI server). Vitest runs
// files without isolation (vitest.config.ts `isolate: false`): a helper module is loaded once per worker and
// its top-level `afterAll` would belong to the first file that imported it only, so helpers register each
// clean-up here when they make the thing, and tests/support/file-end-hook.ts (a setup file, run for every file)
// runs and forgets them when the file's own `afterAll` hooks are done.

const owed: Array<() => unknown> = [];

/** Runs `cleanUp` when the current test file ends, after the file's own `afterAll` hooks. */
export function atFileEnd(cleanUp: () => unknown): void {
  owed.push(cleanUp);
}

/** Runs what the ending file owes, newest first; every clean-up runs even when one throws (the first error is rethrown). */
export async function endFile(): Promise<void> {
  let failure: unknown;
  for (const cleanUp of owed.splice(0).reverse()) {
    try {
      await cleanUp();
    } catch (e) {
      failure ??= e;
    }
  }
  if (failure !== undefined) throw failure;
}
