import { describe, expect, test } from 'vitest';
import { childEnvironment, knownSecrets, redactSecrets, redactValue } from '../../src/secrets.js';
import { cli, NOW, tempDir } from '../runner/cli-helpers.js';

describe('secrets stay out of children and out of the ledger', () => {
  const script = 'echo "db=${RUNLEDGER_DB:-unset} token=$MY_API_TOKEN" >&2; exit 1';

  function failingBackfill(extra: string[]) {
    const dir = tempDir();
    const env = { RUNLEDGER_DB: 'ledger.db', MY_API_TOKEN: 'sup3r-s3cret-value' };
    expect(cli(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'UTC'], env).code).toBe(0);
    const r = cli(dir, ['--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', ...extra, '--', 'sh', '-c', script], env);
    expect(r.code).toBe(6);
    const state = JSON.parse(cli(dir, ['--now', NOW, 'state', 'etl_orders', '--json'], env).stdout) as { dates: Array<{ date: string; error: string | null }> };
    const log = cli(dir, ['log', '--jsonl'], env).stdout;
    return { error: state.dates.find((d) => d.date === '2026-11-02')?.error ?? '', log };
  }

  test("a failing command does not get RUNLEDGER_DB, and a token it prints is stored as [redacted]", () => {
    const { error, log } = failingBackfill([]);
    expect(error).toContain('db=unset token=[redacted]');
    expect(log).not.toContain('sup3r-s3cret-value');
  });

  test('with --pass-ledger-env the command gets RUNLEDGER_DB; the token is still redacted', () => {
    const { error } = failingBackfill(['--pass-ledger-env']);
    expect(error).toContain('db=ledger.db token=[redacted]');
  });

  test("backfill's own output (the --json summary, the table's DETAIL, the progress lines, the command's echoed stderr) prints the secret redacted, as stored", () => {
    for (const extra of [['--json'], []]) {
      const dir = tempDir();
      const env = { RUNLEDGER_DB: 'ledger.db', MY_PASSWORD: 'hunter2pwXYZ' };
      expect(cli(dir, ['define', 'z', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'UTC'], env).code).toBe(0);
      const r = cli(dir, ['--now', NOW, 'backfill', 'z', '--from', '2026-11-02', '--to', '2026-11-02', ...extra, '--', 'sh', '-c', 'echo login hunter2pwXYZ refused >&2; exit 1'], env);
      expect(r.code).toBe(6);
      expect(r.stdout + r.stderr).not.toContain('hunter2pwXYZ');
      expect(r.stderr).toContain('login [redacted] refused');
      if (extra.length > 0) {
        const summary = JSON.parse(r.stdout) as { runs: Array<{ error: string | null }> };
        expect(summary.runs[0]?.error).toContain('login [redacted] refused');
      } else expect(r.stdout).toContain('login [redacted] refused');
    }
  });

  test('a fail --error carrying the PostgreSQL password (PGPASSWORD) is stored redacted', () => {
    const dir = tempDir();
    const env = { PGPASSWORD: 'hunter2-pg' };
    expect(cli(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02'], env).code).toBe(0);
    const run = cli(dir, ['--now', NOW, 'start', 'etl_orders', '2026-11-02'], env).stdout.trim();
    expect(cli(dir, ['fail', run, '--error', 'login as app:hunter2-pg refused'], env).code).toBe(0);
    const log = cli(dir, ['log', '--jsonl'], env).stdout;
    expect(log).toContain('login as app:[redacted] refused');
    expect(log).not.toContain('hunter2-pg');
  });

  test('known secrets: the URL password (decoded), variables named like secrets, longest first; short values are ignored', () => {
    const env = { PGPASSWORD: 'pg-pass', GITHUB_TOKEN: 'ghp_abcdef', MY_SECRET: 'ab', HOME: '/root', RUNLEDGER_DB: 'postgres://app:p%40ss-word@db/ops' };
    expect(knownSecrets(undefined, env)).toEqual(['ghp_abcdef', 'p@ss-word', 'pg-pass']);
    expect(redactSecrets('x p%40ss-word y p@ss-word', ['p@ss-word'])).toBe('x [redacted] y [redacted]');
    expect(redactValue({ nested: [{ note: 'ghp_abcdef!' }], n: 1 }, ['ghp_abcdef'])).toEqual({ nested: [{ note: '[redacted]!' }], n: 1 });
  });

  test("children lose runledger's credentials only", () => {
    const env = { RUNLEDGER_DB: 'postgres://a:b@h/d', RUNLEDGER_API_TOKEN: 't', RUNLEDGER_ACTOR: 'me', PATH: '/bin', DB_PASSWORD: 'theirs' };
    expect(childEnvironment(env, false)).toEqual({ RUNLEDGER_ACTOR: 'me', PATH: '/bin', DB_PASSWORD: 'theirs' });
    expect(childEnvironment(env, true)).toEqual(env);
  });
});
