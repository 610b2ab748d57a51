import { registerAuditCommands } from './commands/audit-commands.js';
import type { CommandRegistrar } from './create-program.js';

/** Commands beyond the core ones (backfill, catchup, audit, demo), each registered from its own module. */
export const extraCommands: CommandRegistrar[] = [registerAuditCommands];
