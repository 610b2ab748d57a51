import { describe, expect, test } from 'vitest';
import { LedgerError } from '../../src/errors.js';
import { parsePostgresUrl } from '../../src/store/postgres/postgres-connection.js';
import { READ_ATTEMPTS, withReadRetry } from '../../src/store/postgres/with-read-retry.js';

const target = parsePostgresUrl('postgres://app:secret@db:5432/ops');
/** A driver error as pg reports it: a SQLSTATE in `code`, a message that is not looked at. */
const pgError = (code: string) => Object.assign(new Error('anything at all'), { code });
const noWait = async () => undefined;

/** A read that fails with the given errors, one per call, then returns 'rows'. */
function readFailing(errors: unknown[]): { read: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    read: async () => {
      const error = errors[calls++];
      if (error !== undefined) throw error;
      return 'rows';
    },
    calls: () => calls,
  };
}

describe('withReadRetry', () => {
  test.each([
    { label: 'terminated by an administrator (57P01)', error: pgError('57P01') },
    { label: 'a connection exception (class 08)', error: pgError('08006') },
    { label: 'the socket closed under the query', error: new Error('Connection terminated unexpectedly') },
  ])('a read whose connection was lost ($label) is run again and answers', async ({ error }) => {
    const waits: number[] = [];
    const { read, calls } = readFailing([error, error]);
    await expect(withReadRetry(target, read, async (ms) => void waits.push(ms))).resolves.toBe('rows');
    expect(calls()).toBe(3);
    expect(waits).toEqual([200, 400]);
  });

  test.each([
    { label: 'permission denied (42501)', error: pgError('42501'), code: 'input.databasePermission' },
    { label: 'statement timeout (57014)', error: pgError('57014'), code: 'store.timeout' },
    { label: 'disk full (53100)', error: pgError('53100'), code: 'store.diskFull' },
  ])('any other error ($label) is not retried and comes out mapped by its SQLSTATE', async ({ error, code }) => {
    const { read, calls } = readFailing([error]);
    const thrown = await withReadRetry(target, read, noWait).catch((e: unknown) => e);
    expect(calls()).toBe(1);
    expect(thrown).toBeInstanceOf(LedgerError);
    expect((thrown as LedgerError).code).toBe(code);
  });

  test('an error the table does not know is passed on as it is, after one try', async () => {
    const error = pgError('42P01');
    const { read, calls } = readFailing([error]);
    await expect(withReadRetry(target, read, noWait)).rejects.toBe(error);
    expect(calls()).toBe(1);
  });

  test('a connection lost on every try gives up after READ_ATTEMPTS tries with the lost-connection error, password-free', async () => {
    const { read, calls } = readFailing(Array.from({ length: 10 }, () => pgError('57P01')));
    const thrown = await withReadRetry(target, read, noWait).catch((e: unknown) => e);
    expect(calls()).toBe(READ_ATTEMPTS);
    expect((thrown as LedgerError).code).toBe('store.connectionLost');
    expect((thrown as LedgerError).message).toContain('db:5432');
    expect((thrown as LedgerError).message).not.toContain('secret');
  });
});
