// Runs a console block as a reader would type it into a terminal, and says how its output differs from the doc.
// See docs/contributing.md, "Console blocks are tests", for the convention this implements.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { atFileEnd } from '../support/at-file-end.js';
import { BIN } from '../support/run-cli.js';
import { trimLines, type ConsoleBlock, type ConsoleStep } from './console-blocks.js';
import type { BlockChain } from './doc-files.js';

/** The terminal the blocks run in: wide enough for the docs' tables, as wide as the docs say. */
export const TERMINAL_COLUMNS = 120;
/** A hang guard for one block (a command waiting for input, a server), not a speed check. */
export const BLOCK_TIMEOUT_MS = 110_000;
const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;
const SHA256 = /\b[0-9a-f]{64}\b/g;
/** How long a command took, as backfill and catchup print it (`0.31s`, `12.3s`). */
const ELAPSED = /\b\d+\.\d{1,2}s\b/g;

/**
 * What a terminal shows, as text: colours and other escape sequences dropped, and a line redrawn after a carriage
 * return shows only its last drawing. Trailing spaces and trailing blank lines do not count.
 */
export function terminalText(text: string): string {
  const lines = stripVTControlCharacters(text.replace(/\r+\n/g, '\n'))
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r') + 1));
  return trimLines(lines.join('\n'));
}

/**
 * Run ids (ULIDs), sha256 hashes and how long a command took differ on every run: they compare as `<ULID>`, `<HASH>`
 * and `<ELAPSED>`.
 */
export function normalize(text: string): string {
  return trimLines(text).replace(ULID, '<ULID>').replace(SHA256, '<HASH>').replace(ELAPSED, '<ELAPSED>');
}

/** What a chain printed: per block, what the terminal showed after each command; and the deprecations it hit. */
export type ChainRun = { outputs: string[][]; deprecations: string[] };

/**
 * Runs every `$ ` command of the chain's blocks, in order, in one bash in a pseudo-terminal (stdout and stderr merged,
 * as on a screen), in `dir`, as a reader types them into one terminal: files, the working directory and shell
 * variables carry from block to block. `npx runledger` and `runledger` are `bin` (a package's, say), each in a process
 * of its own; or, with `server`, this checkout's built CLI run by that doc CLI server (see DOC_CLI_CLIENT). Every
 * Node.js process the commands start, and the server, reports a DeprecationWarning it emits (even with stderr sent
 * to /dev/null) into `deprecations`, as `<file>:<line>: <warning>`, `<line>` being the command's. `work` is a
 * directory for the harness's own files.
 */
export async function runChain(chain: BlockChain, dir: string, work: string, bin = BIN, server?: DocCliServer): Promise<ChainRun> {
  const marker = `@@doc-test-${randomBytes(8).toString('hex')}@@`;
  const script = join(work, 'chain.sh');
  const preload = join(work, 'record-deprecations.cjs');
  const log = join(work, 'deprecations.log');
  const steps = chain.blocks.flatMap((block) => block.steps.map((step: ConsoleStep) => ({ block, step })));
  writeFileSync(preload, RECORD_DEPRECATIONS);
  mkdirSync(join(work, 'tmp'));
  writeFileSync(
    script,
    [
      `stty cols ${TERMINAL_COLUMNS} rows 50 2>/dev/null`,
      `__runledger_process() { ${shellQuote(process.execPath)} ${shellQuote(bin)} "$@"; }`,
      ...(server ? [docCliClient(server.port)] : ['__runledger() { __runledger_process "$@"; }']),
      `npx() { if [ "$1" = runledger ]; then shift; __runledger "$@"; else command npx "$@"; fi; }`,
      `runledger() { __runledger "$@"; }`,
      // After each command, the warnings it caused are moved aside under its number.
      ...steps.flatMap(({ step }, i) => [step.command, `{ [ -s ${shellQuote(log)} ] && mv ${shellQuote(log)} ${shellQuote(`${log}.${i}`)}; printf '\\n%s\\n' '${marker}'; }`]),
    ].join('\n') + '\n',
  );
  const argv = process.platform === 'darwin' ? ['-q', '/dev/null', 'bash', script] : ['-q', '-e', '-c', `bash ${shellQuote(script)}`, '/dev/null'];
  const transcript = await new Promise<string>((resolve, reject) => {
    // A startup file named by BASH_ENV would run before the block and could print.
    const { BASH_ENV: _bashEnv, ENV: _env, ...env } = process.env;
    env['NODE_OPTIONS'] = `${env['NODE_OPTIONS'] ?? ''} --require "${preload}"`.trim();
    env['RUNLEDGER_DOC_TEST_DEPRECATIONS'] = log;
    // `cd "$(mktemp -d)"`, where a guide starts over, makes its directory in the run's own, removed with it.
    env['TMPDIR'] = join(work, 'tmp');
    const child = spawn('script', argv, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // Decoded once at the end: a chunk may end inside a character (the calendar's glyphs are 3 bytes).
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => out.push(d));
    const timeout = BLOCK_TIMEOUT_MS * chain.blocks.length;
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      const done = Buffer.concat(out).toString('utf8').split(marker).length - 1;
      const at = steps[done] ?? steps.at(-1);
      reject(new Error(`${at?.block.file}:${at?.step.line}: the block at line ${at?.block.line} still ran after ${timeout / 1000} s (a command waiting for input, or a server?); mark it <!-- doc-test: skip: <reason> --> if it cannot end`));
    }, timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run the doc tests' terminal (util-linux script): ${error.message}`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(out).toString('utf8'));
    });
  });
  const chunks = transcript.replace(/\r+\n/g, '\n').split(new RegExp(`\\n?${marker}\\n`));
  let i = 0;
  const outputs = chain.blocks.map((block) => block.steps.map(() => terminalText(chunks[i++] ?? '')));
  const deprecations = steps.flatMap(({ block, step }, n) => {
    const file = `${log}.${n}`;
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((warning) => `${block.file}:${step.line}: \`$ ${step.command.split('\n')[0]}\` printed ${warning}`);
  });
  return { outputs, deprecations };
}

/**
 * The shell function that runs a `runledger` command line in the doc CLI server listening on `port`
 * (tests/docs/doc-cli-server.mjs, which loaded the built CLI once), with the shell's directory, exported variables,
 * stdout and stderr, and returns its exit code: what a process of its own would do, without a Node.js start per
 * command. Where the process is the subject, or a stream the server cannot take over, the command runs as a
 * process of its own: `notify` and `follow` (their commands write straight to the terminal), `serve` and
 * `scheduler` (they run until stopped), and a `-` argument (the shell's stdin). An argument that only looks like one
 * of these words costs a process start, nothing else. So does a stdout or stderr the server cannot open (a socket).
 */
function docCliClient(port: number): string {
  return `__runledger() {
  case " $* " in *" notify "* | *" follow "* | *" serve "* | *" scheduler "* | *" - "*) __runledger_process "$@"; return ;; esac
  local __rl_fd __rl_out= __rl_err= __rl_name __rl_code
  [ -t 1 ] && __rl_out=1
  [ -t 2 ] && __rl_err=1
  exec {__rl_fd}<>/dev/tcp/127.0.0.1/${port} || return 70
  {
    printf '%s\\0' ${DOC_CLI_PROTOCOL} "$BASHPID" "$PWD" "$__rl_out" "$__rl_err" ${TERMINAL_COLUMNS} "$#" "$@"
    for __rl_name in $(compgen -e); do printf '%s=%s\\0' "$__rl_name" "\${!__rl_name}"; done
    printf '\\0'
  } >&"$__rl_fd"
  read -r -u "$__rl_fd" __rl_code
  exec {__rl_fd}>&-
  [ "$__rl_code" = process ] && { __runledger_process "$@"; return; }
  return "\${__rl_code:-70}"
}`;
}

/** What the client's first field says, so a stray connection is refused (doc-cli-server.mjs says the same). */
const DOC_CLI_PROTOCOL = 'runledger-doc-cli-1';

/** A doc CLI server: its port, and the process. */
export type DocCliServer = { port: number; child: ChildProcess };

const idleServers: DocCliServer[] = [];
const liveServers = new Set<DocCliServer>();

/** A doc CLI server nobody uses: an idle one, or a new one (chains run side by side, a shell each). */
async function takeServer(): Promise<DocCliServer> {
  const idle = idleServers.pop();
  if (idle) return idle;
  // Node's own options, not the test runner's (vitest's would hide warnings).
  const child = fork(new URL('./doc-cli-server.mjs', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolvePort, reject) => {
    child.once('message', (message: { port: number }) => resolvePort(message.port));
    child.once('exit', (code, signal) => reject(new Error(`the doc CLI server exited (${signal ?? code}) before listening`)));
  });
  const server = { port, child };
  liveServers.add(server);
  // Stopped when the file that started it ends (idle or not).
  atFileEnd(() => {
    const at = idleServers.indexOf(server);
    if (at !== -1) idleServers.splice(at, 1);
    if (liveServers.has(server)) server.child.kill();
  });
  child.once('exit', () => {
    liveServers.delete(server);
    const at = idleServers.indexOf(server);
    if (at !== -1) idleServers.splice(at, 1);
  });
  return server;
}


/**
 * Loaded into every Node.js process a block starts (NODE_OPTIONS): appends each DeprecationWarning to the file named
 * by RUNLEDGER_DOC_TEST_DEPRECATIONS. Node still prints it as usual.
 */
const RECORD_DEPRECATIONS = `process.on('warning', (warning) => {
  const file = process.env.RUNLEDGER_DOC_TEST_DEPRECATIONS;
  if (!file || warning.name !== 'DeprecationWarning') return;
  const code = warning.code ? '[' + warning.code + '] ' : '';
  require('node:fs').appendFileSync(file, 'DeprecationWarning: ' + code + String(warning.message).replace(/\\n/g, ' ') + '\\n');
});
`;

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The block as the doc shows it, and as it ran: `$ command` lines each followed by their output. */
export function transcripts(block: ConsoleBlock, outputs: string[]): { expected: string; actual: string } {
  const show = (output: (i: number) => string) =>
    block.steps.map((step, i) => [`$ ${step.command}`, output(i)].filter((part) => part !== '').join('\n')).join('\n');
  return { expected: show((i) => normalize(block.steps[i]?.output ?? '')), actual: show((i) => normalize(outputs[i] ?? '')) };
}

/** A block that printed something else than its doc shows: where, and both transcripts (the test shows their diff). */
export type Drift = { block: ConsoleBlock; outputs: string[]; where: string; expected: string; actual: string };

/** Undefined when the block printed what the doc shows. */
export function driftOf(block: ConsoleBlock, outputs: string[]): Drift | undefined {
  const { expected, actual } = transcripts(block, outputs);
  if (expected === actual) return undefined;
  const first = block.steps.find((step, i) => normalize(step.output) !== normalize(outputs[i] ?? ''));
  const where = `${block.file}:${first?.line ?? block.line}: the console block at line ${block.line} prints something else than the doc shows, first at \`$ ${first?.command.split('\n')[0] ?? ''}\``;
  return { block, outputs, where, expected, actual };
}

/**
 * Runs a chain of blocks in one fresh directory, its `runledger` commands in a doc CLI server on Linux (or, with
 * `processes` or elsewhere, each in a process of its own): the drift of every block that printed something else,
 * and the deprecations.
 */
export async function driftsOfChain(chain: BlockChain, { processes = false } = {}): Promise<{ drifts: Drift[]; deprecations: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'runledger-doc-'));
  try {
    const dir = join(root, 'work');
    mkdirSync(dir);
    // The server writes to the shell's streams through Linux's /proc: elsewhere, a process per command.
    const server = processes || process.platform !== 'linux' ? undefined : await takeServer();
    const { outputs, deprecations } = await runChain(chain, dir, root, BIN, server).finally(() => {
      if (server && liveServers.has(server)) idleServers.push(server);
    });
    const drifts = chain.blocks.flatMap((block, i) => driftOf(block, outputs[i] ?? []) ?? []);
    return { drifts, deprecations };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The file with each drifted block's outputs replaced by what ran (`DOC_TEST_WRITE=1`): the doc then shows what the
 * commands print, real run ids included. Review the diff before committing it.
 */
export function rewritten(markdown: string, drifts: Drift[]): string {
  const lines = markdown.split('\n');
  const edits = drifts.flatMap(({ block, outputs }) =>
    block.steps.map((step, i) => ({ ...step.outputLines, text: (outputs[i] ?? '').split('\n').filter((l, _, all) => all.length > 1 || l !== '').map((l) => (l === '' ? '' : block.indent + l)) })),
  );
  for (const edit of edits.sort((a, b) => b.from - a.from)) lines.splice(edit.from - 1, edit.to - edit.from, ...edit.text);
  return lines.join('\n');
}
