import { registerAuditCommands } from './commands/audit-commands.js';
import { registerBackfillCommands } from './commands/backfill-commands.js';
import { registerDemoCommand } from './commands/demo-command.js';
import { registerFollowCommand } from './commands/follow-command.js';
import { registerGraphCommand } from './commands/graph-command.js';
import { registerLineageCommand } from './commands/lineage-command.js';
import { registerMetricsCommand } from './commands/metrics-command.js';
import { registerNotifyCommand } from './commands/notify-command.js';
import { registerReportCommand } from './commands/report-command.js';
import { registerIngestCommand } from './commands/ingest-command.js';
import { registerSchedulerCommand } from './commands/scheduler-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerStatusCommands } from './commands/status-commands.js';
import type { CommandRegistrar } from './create-program.js';

/** Commands beyond the core ones (backfill, catchup, scheduler, audit, demo, serve, status, metrics, follow, notify, report, ingest, graph, lineage), each registered from its own module. */
export const extraCommands: CommandRegistrar[] = [registerBackfillCommands, registerAuditCommands, registerDemoCommand, registerServeCommand, registerStatusCommands, registerMetricsCommand, registerFollowCommand, registerNotifyCommand, registerReportCommand, registerIngestCommand, registerGraphCommand, registerLineageCommand, registerSchedulerCommand];
