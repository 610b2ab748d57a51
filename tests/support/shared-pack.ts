// Vitest globalSetup: a directory for the run's one packed tarball. Nothing is packed here: the first packaging
// file that needs the tarball packs it into this directory and the others reuse it (tests/packaging/packed-tarball.ts),
// so a run that names no packaging file pays nothing. Removed at the end of the run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's packed tarball is made once and shared by the packaging files. */
    packDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-shared-pack-'));
  project.provide('packDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
