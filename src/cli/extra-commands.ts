import { registerAuditCommands } from './commands/audit-commands.js';
import { registerBackfillCommands } from './commands/backfill-commands.js';
import { registerDemoCommand } from './commands/demo-command.js';
import { registerIngestCommand } from './commands/ingest-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import type { CommandRegistrar } from './create-program.js';

/** Commands beyond the core ones (backfill, catchup, audit, demo, serve), each registered from its own module. */
export const extraCommands: CommandRegistrar[] = [registerBackfillCommands, registerAuditCommands, registerDemoCommand, registerServeCommand, registerIngestCommand];
