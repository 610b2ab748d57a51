import { spawn, type ChildProcess } from 'node:child_process';

/** A child process a test means to SIGKILL, with its output kept as it arrives. */
export type KillableProcess = {
  child: ChildProcess;
  /** Everything it printed so far on stdout and stderr. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in its output (stdout then stderr), or null once it has exited without one. */
  firstMatch(pattern: RegExp): Promise<RegExpExecArray | null>;
  /** Resolves once it has exited (whatever the reason) and its pipes are drained. */
  exited: Promise<void>;
  /** SIGKILL, then wait for it to be gone. */
  kill(): Promise<void>;
};

/**
 * Starts `node <args>` for a kill test. On Linux a pipe write is synchronous,
 * so a line the child printed before it was killed is in `stdout()` once
 * `exited` resolves: what a child acknowledged can be checked against the ledger.
 *
 * @example
 * const worker = spawnKillable([WORKER, db]);
 * await worker.firstMatch(/^ack /m);
 * await worker.kill();
 */
export function spawnKillable(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): KillableProcess {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env, cwd: options.cwd });
  let stdout = '';
  let stderr = '';
  const waiting: Array<{ pattern: RegExp; done: (match: RegExpExecArray | null) => void }> = [];
  const check = () => {
    for (const w of [...waiting]) {
      const match = w.pattern.exec(stdout) ?? w.pattern.exec(stderr);
      if (match) {
        waiting.splice(waiting.indexOf(w), 1);
        w.done(match);
      }
    }
  };
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
    check();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    check();
  });
  // 'close', not 'exit': the pipes are drained by then, so no acknowledged line is missed.
  let closed = false;
  const exited = new Promise<void>((done) =>
    child.on('close', () => {
      closed = true;
      for (const w of waiting.splice(0)) w.done(null);
      done();
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    firstMatch(pattern) {
      const match = pattern.exec(stdout) ?? pattern.exec(stderr);
      if (match || closed) return Promise.resolve(match);
      return new Promise((done) => waiting.push({ pattern, done }));
    },
    exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
