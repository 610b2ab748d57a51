import { hostname, networkInterfaces } from 'node:os';
import type { Command } from 'commander';
import { LedgerError } from '../../errors.js';
import { allowedHostNames, isLoopback } from '../../serve/check-host.js';
import { checkTokens, parseWriteToken } from '../../serve/check-token.js';
import { createServer } from '../../serve/create-server.js';
import type { CliContext } from '../cli-context.js';
import { parseByteSize } from '../parse-options.js';
import { readBoundedText } from '../read-bounded-file.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';

type ServeOpts = { host: string; port: string; token?: string; writeToken: string[]; writeTokenFile: string[]; allowedHost: string[]; openlineageAuto?: boolean; strictLineage?: boolean; log?: boolean; bodyLimit: string; maxStreams: string };

/** A request body may be as small as a lineage event and as large as a success under the largest metrics cap (16 MB) with its envelope. */
const BODY_LIMIT = { min: 1024, max: 64 * 1024 * 1024 };

const collect = (value: string, previous: string[]) => [...previous, value];

/** Every address of this machine's interfaces, for a server listening on all of them. */
function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/**
 * The write tokens' texts: from `--write-token` and `--write-token-file` when either is given, else from
 * `RUNLEDGER_WRITE_TOKEN_FILE` and `RUNLEDGER_WRITE_TOKEN` (which may hold several, separated by spaces or new
 * lines: a token never holds either). A file or the environment keeps secrets off the command line, which `ps` shows.
 */
function writeTokensOf(opts: ServeOpts, env: Readonly<Record<string, string | undefined>>): string[] {
  const fromFiles = (paths: string[]) => paths.flatMap(tokensInFile);
  if (opts.writeToken.length > 0 || opts.writeTokenFile.length > 0) return [...opts.writeToken, ...fromFiles(opts.writeTokenFile)];
  return [...fromFiles(env['RUNLEDGER_WRITE_TOKEN_FILE'] ? [env['RUNLEDGER_WRITE_TOKEN_FILE']] : []), ...(env['RUNLEDGER_WRITE_TOKEN'] ?? '').split(/\s+/).filter((t) => t !== '')];
}

function tokensInFile(path: string): string[] {
  const text = readBoundedText(path, { what: 'write token file', maxBytes: 1024 * 1024, unreadable: 'input.unreadableFile', notFound: 'notFound.file' });
  const tokens = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (tokens.length === 0) throw new LedgerError('input.weakToken', `the write token file ${path} holds no token; write one \`[name=]token\` a line`);
  return tokens;
}

export function registerServeCommand(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .summary('serve the ledger over HTTP: pages, a JSON API, and (with a write token) writes')
    .description(
      'Serves the ledger over HTTP until Ctrl-C. It binds to 127.0.0.1 unless told otherwise; any other ' +
        'address needs --token (or RUNLEDGER_TOKEN): reads then present it as `Authorization: Bearer`, or a browser ' +
        'opens a page once with ?token= and keeps it in an HttpOnly, SameSite=Strict cookie. Writes are refused unless ' +
        '--write-token (or RUNLEDGER_WRITE_TOKEN) is set, and take it as `Authorization: Bearer` only, never from a ' +
        'cookie or an address. `--write-token NAME=SECRET` (repeatable) names each writer; its writes are recorded as ' +
        'actor http:NAME. Tokens need at least 16 characters, and a write token must differ from the read token. ' +
        'Requests must name the server by an address it listens on (or an --allowed-host), so a web page reaching it ' +
        'through a rebound DNS name is refused with 421.',
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8080')
    .option('--token <token>', 'token every read needs (default: $RUNLEDGER_TOKEN); required off loopback')
    .option('--write-token <[name=]token>', 'a token writes need, as a bearer header (default: $RUNLEDGER_WRITE_TOKEN); NAME= names the writer, recorded as http:NAME; repeatable; without one, writes are refused', collect, [])
    .option('--write-token-file <path>', 'a file of write tokens, one `[name=]token` a line (# comments), so no secret shows in `ps` (default: $RUNLEDGER_WRITE_TOKEN_FILE); repeatable', collect, [])
    .option('--allowed-host <name>', 'another host name requests may carry, e.g. the name of a reverse proxy in front (repeatable)', collect, [])
    .option('--openlineage-auto', "on POST /api/v1/lineage, define unbound Airflow DAGs from the events' dag facet (cron timetable and zone)")
    .option('--strict-lineage', 'on POST /api/v1/lineage, refuse with 404 an event whose job (and its parent\'s) is bound to no pipeline, instead of answering it ignored')
    .option('--log', 'log one line per request on stderr')
    .option('--body-limit <size>', "the largest request body taken, e.g. 4MB; a larger one is refused with 413 (raise it for pipelines whose --max-metrics-bytes is over 1MB; at most 64MB)", '1MB')
    .option('--max-streams <n>', 'event streams (the live updates of open pages) kept open at a time; past it a new one is answered 503 with Retry-After', '100')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger serve --db ./ledger.db\n  RUNLEDGER_TOKEN=$(openssl rand -hex 24) runledger serve --host 0.0.0.0 --port 8080\n  runledger serve --write-token-file /run/secrets/runledger-writers   # airflow=…, ci=…, one a line\n  runledger serve --allowed-host ledger.example.com   # behind a reverse proxy of that name\n  runledger serve --write-token "$WRITE_TOKEN" --openlineage-auto   # Airflow: OPENLINEAGE_URL=http://127.0.0.1:8080\n\nSee docs/web-security.md for tokens, cookies and allowed hosts.',
    )
    .action(async (opts: ServeOpts) => {
      const port = parseWholeNumber(opts.port, '--port', 0);
      if (port > 65535) throw new LedgerError('input.invalidNumber', `--port must be at most 65535, not ${port}`);
      const bodyLimit = parseByteSize(opts.bodyLimit, '--body-limit');
      if (bodyLimit < BODY_LIMIT.min || bodyLimit > BODY_LIMIT.max) {
        throw new LedgerError('input.invalidSizeCap', `--body-limit must be between 1KB and 64MB, not '${opts.bodyLimit}'`);
      }
      const maxStreams = parseWholeNumber(opts.maxStreams, '--max-streams', 1);
      const readToken = opts.token ?? (ctx.deps.env['RUNLEDGER_TOKEN'] || undefined);
      const writeTokens = writeTokensOf(opts, ctx.deps.env).map(parseWriteToken);
      checkTokens(readToken, writeTokens);
      if (!isLoopback(opts.host) && !readToken) {
        throw new LedgerError('input.tokenRequired', `--host ${opts.host} lets other machines in; give --token (or RUNLEDGER_TOKEN) so every request must present it, or keep the default 127.0.0.1`);
      }
      const allowedHosts = allowedHostNames(opts.host, opts.allowedHost, { addresses: machineAddresses(), hostname: hostname() });
      await ctx.withLedger(false, async (ledger) => {
        const app = await createServer({
          ledger,
          clock: ctx.clock(),
          bodyLimit,
          maxStreams,
          ...(readToken ? { readToken } : {}),
          writeTokens,
          allowedHosts,
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
        ctx.note(`runledger: serving ${address} (${writeTokens.length ? `writes allowed with ${writeTokens.length === 1 ? 'the write token' : `${writeTokens.length} write tokens`}` : 'read-only'}); Ctrl-C to stop`);
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
