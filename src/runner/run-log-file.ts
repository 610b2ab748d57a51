import { nodeCrypto } from '../node-crypto.js';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import type { RunLog } from '../../events/common.js';
import { redactSecrets } from '../secrets.js';
import type { RunContext } from './run-types.js';

/** One run's log file being written: each line as it comes, then the path and sha256 to record with the outcome. */
export type RunLogFile = {
  /** Appends one line of the command's stdout or stderr (known secrets replaced by `[redacted]`). */
  write(line: string): void;
  /** Closes the file; its absolute path and the sha256 of its bytes, or null when it could not be written. */
  close(): Promise<RunLog | null>;
};

/** Characters a file name keeps as they are; others (`:` and `+` of an instant key, `/`) become `-`. */
const UNSAFE = /[^A-Za-z0-9._-]/g;

/**
 * The log file of one run: `<dir>/<pipeline>/<date>_<runId>.log`, created new (never appended to) with mode
 * 0600 in directories of mode 0700, since a command's output may hold data its owner alone should read.
 * stdout and stderr lines go in as they arrive, the order a terminal would show them. A file that cannot be
 * written (a full disk, no permission) does not fail the run: `onError` is told once, and `close` gives null.
 *
 * @example
 * const log = openRunLogFile('./runledger.db.logs', run, secrets, (e) => warn(e));
 * log.write('loaded 42 rows');
 * const recorded = await log.close(); // { path: '/…/etl_orders/2026-11-02_01J….log', sha256: '…' }
 */
export function openRunLogFile(dir: string, run: RunContext, secrets: readonly string[], onError: (error: Error) => void): RunLogFile {
  const path = resolve(join(dir, run.pipeline, `${run.date.replace(UNSAFE, '-')}_${run.runId.replace(UNSAFE, '-')}.log`));
  const hash = nodeCrypto().createHash('sha256');
  let failed: Error | null = null;
  const fail = (error: Error) => {
    if (failed) return;
    failed = error;
    onError(error);
  };
  let buffered: string[] = [];
  let stream: ReturnType<typeof createWriteStream> | null = null;
  const opened = mkdir(join(dir, run.pipeline), { recursive: true, mode: 0o700 }).then(
    () => {
      stream = createWriteStream(path, { flags: 'wx', mode: 0o600, encoding: 'utf8' });
      stream.on('error', fail);
      for (const text of buffered) stream.write(text);
      buffered = [];
    },
    (error: Error) => fail(error),
  );
  return {
    write(line) {
      if (failed) return;
      const text = `${redactSecrets(line, secrets)}\n`;
      hash.update(text, 'utf8');
      if (stream) stream.write(text);
      else buffered.push(text);
    },
    async close() {
      await opened;
      if (stream && !failed) {
        stream.end();
        await finished(stream).catch((error: Error) => fail(error));
      }
      if (failed) return null;
      return { path, sha256: hash.digest('hex') };
    },
  };
}
