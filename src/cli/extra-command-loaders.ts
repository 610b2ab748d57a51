import type { CommandRegistrar } from './create-program.js';

type Loader = () => Promise<CommandRegistrar>;

const status: Loader = async () => (await import('./commands/status-commands.js')).registerStatusCommands;
const audit: Loader = async () => (await import('./commands/audit-commands.js')).registerAuditCommands;
const backfill: Loader = async () => (await import('./commands/backfill-commands.js')).registerBackfillCommands;
const follow: Loader = async () => (await import('./commands/follow-command.js')).registerFollowCommand;
const ingest: Loader = async () => (await import('./commands/ingest-command.js')).registerIngestCommand;

/** The module that registers each extra command (see extra-commands.ts for the whole list). */
const BY_COMMAND: Record<string, Loader> = {
  status,
  check: status,
  verify: audit,
  rebuild: audit,
  export: audit,
  import: audit,
  replay: audit,
  backfill,
  catchup: backfill,
  follow,
  consumers: follow,
  ingest,
  openlineage: ingest,
  demo: async () => (await import('./commands/demo-command.js')).registerDemoCommand,
  graph: async () => (await import('./commands/graph-command.js')).registerGraphCommand,
  lineage: async () => (await import('./commands/lineage-command.js')).registerLineageCommand,
  metrics: async () => (await import('./commands/metrics-command.js')).registerMetricsCommand,
  notify: async () => (await import('./commands/notify-command.js')).registerNotifyCommand,
  report: async () => (await import('./commands/report-command.js')).registerReportCommand,
  serve: async () => (await import('./commands/serve-command.js')).registerServeCommand,
  scheduler: async () => (await import('./commands/scheduler-command.js')).registerSchedulerCommand,
};

/**
 * The extra commands a command line needs: only the module of the command it names, so `status` does
 * not load the web server and the metrics library; every extra command when it names none of them
 * (`--help`, a typo), so help and suggestions still see them all.
 *
 * @example
 * const registrars = await extraCommandsFor('status'); // [registerStatusCommands]
 */
export async function extraCommandsFor(word: string | undefined): Promise<CommandRegistrar[]> {
  const load = word === undefined || !Object.hasOwn(BY_COMMAND, word) ? undefined : BY_COMMAND[word];
  if (load !== undefined) return [await load()];
  return (await import('./extra-commands.js')).extraCommands;
}
