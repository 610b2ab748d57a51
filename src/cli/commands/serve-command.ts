import type { Command } from 'commander';
import { LedgerError } from '../../errors.js';
import { createServer } from '../../serve/create-server.js';
import type { CliContext } from '../cli-context.js';
import { parseByteSize, parseWholeNumber } from '../parse-options.js';

type ServeOpts = { host: string; port: string; token?: string; writeToken?: string; openlineageAuto?: boolean; strictLineage?: boolean; log?: boolean; bodyLimit: string };

/** A request body may be as small as a lineage event and as large as a success under the largest metrics cap (16 MB) with its envelope. */
const BODY_LIMIT = { min: 1024, max: 64 * 1024 * 1024 };

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function registerServeCommand(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .summary('serve the ledger over HTTP: pages, a JSON API, and (with a write token) writes')
    .description(
      'Serves the ledger over HTTP until Ctrl-C. It binds to 127.0.0.1 unless told otherwise; any other ' +
        'address needs --token (or RUNLEDGER_TOKEN), checked on every request as a bearer token or cookie. ' +
        'Writes are refused unless --write-token (or RUNLEDGER_WRITE_TOKEN) is set.',
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8080')
    .option('--token <token>', 'token every read needs (default: $RUNLEDGER_TOKEN); required off loopback')
    .option('--write-token <token>', 'token writes need (default: $RUNLEDGER_WRITE_TOKEN); without one, writes are refused')
    .option('--openlineage-auto', "on POST /api/v1/lineage, define unbound Airflow DAGs from the events' dag facet (cron timetable and zone)")
    .option('--strict-lineage', 'on POST /api/v1/lineage, refuse with 404 an event whose job (and its parent\'s) is bound to no pipeline, instead of answering it ignored')
    .option('--log', 'log one line per request on stderr')
    .option('--body-limit <size>', "the largest request body taken, e.g. 4MB; a larger one is refused with 413 (raise it for pipelines whose --max-metrics-bytes is over 1MB; at most 64MB)", '1MB')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger serve --db ./ledger.db\n  RUNLEDGER_TOKEN=s3cret runledger serve --host 0.0.0.0 --port 8080\n  runledger serve --write-token "$WRITE_TOKEN"\n  runledger serve --write-token s3cret --openlineage-auto   # Airflow: OPENLINEAGE_URL=http://127.0.0.1:8080',
    )
    .action(async (opts: ServeOpts) => {
      const port = parseWholeNumber(opts.port, '--port', 0);
      if (port > 65535) throw new LedgerError('input.invalidNumber', `--port must be at most 65535, not ${port}`);
      const bodyLimit = parseByteSize(opts.bodyLimit, '--body-limit');
      if (bodyLimit < BODY_LIMIT.min || bodyLimit > BODY_LIMIT.max) {
        throw new LedgerError('input.invalidSizeCap', `--body-limit must be between 1KB and 64MB, not '${opts.bodyLimit}'`);
      }
      const readToken = opts.token ?? (ctx.deps.env['RUNLEDGER_TOKEN'] || undefined);
      const writeToken = opts.writeToken ?? (ctx.deps.env['RUNLEDGER_WRITE_TOKEN'] || undefined);
      if (!isLoopback(opts.host) && !readToken) {
        throw new LedgerError('input.tokenRequired', `--host ${opts.host} lets other machines in; give --token (or RUNLEDGER_TOKEN) so every request must present it, or keep the default 127.0.0.1`);
      }
      await ctx.withLedger(false, async (ledger) => {
        const app = await createServer({
          ledger,
          clock: ctx.clock(),
          bodyLimit,
          ...(readToken ? { readToken } : {}),
          ...(writeToken ? { writeToken } : {}),
          ...(opts.log ? { logRequests: true } : {}),
          ...(opts.openlineageAuto ? { openlineageAuto: true } : {}),
          ...(opts.strictLineage ? { strictLineage: true } : {}),
        });
        let address: string;
        try {
          address = await app.listen({ host: opts.host, port });
        } catch (error) {
          await app.close();
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EADDRINUSE') throw new LedgerError('input.portInUse', `port ${port} on ${opts.host} is in use; pick another with --port`);
          if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new LedgerError('input.invalidHost', `cannot listen on ${opts.host}: no such address on this machine`);
          throw error;
        }
        ctx.note(`runledger: serving ${address} (${writeToken ? 'writes allowed with the write token' : 'read-only'}); Ctrl-C to stop`);
        await new Promise<void>((resolve) => {
          const stop = () => {
            ctx.deps.signals?.off('SIGINT', stop);
            ctx.deps.signals?.off('SIGTERM', stop);
            resolve();
          };
          ctx.deps.signals?.on('SIGINT', stop);
          ctx.deps.signals?.on('SIGTERM', stop);
        });
        ctx.note('runledger: stopping; finishing the requests in flight');
        await app.close();
      });
    });
}
