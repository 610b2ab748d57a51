import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first, as measured by a whole run (`npx vitest run --reporter=json`, each
 * file's end − start). Vitest orders a run by the durations of the run before; a fresh clone has none and would
 * start with the largest files, so one of these could start last and hold the run open alone. A file missing
 * here (renamed, new) only runs in vitest's own order.
 */
const SLOW_FILES = [
  'tests/packaging/types-fresh-project.test.ts',
  'tests/ops/follow-kill.e2e.test.ts',
  'tests/multiwriter/multiwriter.e2e.test.ts',
  'tests/browser/views.e2e.test.ts',
  'tests/runner/scheduler-share.e2e.test.ts',
  'tests/reliability/kill-9.e2e.test.ts',
  'tests/runner/issue10-acceptance.e2e.test.ts',
  'tests/docs/console-blocks.test.ts',
  'tests/browser/live-per-pipeline.e2e.test.ts',
  'tests/runner/process-groups.e2e.test.ts',
  'tests/runner/scheduler-restart.e2e.test.ts',
  'tests/serve/http-hygiene.socket.test.ts',
  'tests/ledger/checkpoint.property.test.ts',
  'tests/store/read-models.property.test.ts',
  'tests/store/sqlite-new-ledger-race.e2e.test.ts',
  'tests/runner/scheduler-pools.e2e.test.ts',
  'tests/runner/processes.e2e.test.ts',
  'tests/ledger-contract/ledger.contract.test.ts',
  'tests/audit/signing.test.ts',
  'tests/runner/scheduler.e2e.test.ts',
  'tests/store/any-text.property.test.ts',
  'tests/runner/run-control.e2e.test.ts',
  'tests/audit/verify-worker.test.ts',
  'tests/dependencies/dependencies.e2e.test.ts',
  'tests/packaging/knip-check.test.ts',
  'tests/runner/scheduler-pools-pg.e2e.test.ts',
  'tests/ops/follow.e2e.test.ts',
  'tests/serve/audit-count.socket.test.ts',
];

/** Vitest's own order, with SLOW_FILES moved to the front in their order (vitest.config.ts `sequence.sequencer`). */
export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const at = SLOW_FILES.findIndex((slow) => file.moduleId.endsWith(`/${slow}`));
      return at === -1 ? SLOW_FILES.length : at;
    };
    const sorted = await super.sort(files);
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}
