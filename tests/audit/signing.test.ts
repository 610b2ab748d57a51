import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { chainHash } from '../../events/hash-chain.js';
import { openLedger } from '../../src/open-ledger.js';
import { childEnvironment, knownSecrets } from '../../src/secrets.js';
import { sha256Hex } from '../../src/store/seal-events.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { BIN, servingAddress } from '../support/run-cli.js';
import { run, tempDir } from './cli-session.js';

// Issue 16, forged appends: optional signing of every appended event's chain hash, and verify covering runledger_meta.

const HMAC_SECRET = 'correct-horse-battery-staple-0123456789';

function keyPair(dir: string, name: string): { privatePath: string; publicPath: string; privatePem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privatePath = join(dir, `${name}.pem`);
  const publicPath = join(dir, `${name}.pub.pem`);
  writeFileSync(privatePath, privatePem, { mode: 0o600 });
  writeFileSync(publicPath, publicKey.export({ type: 'spki', format: 'pem' }).toString());
  return { privatePath, publicPath, privatePem };
}

/** Raw SQL on a ledger, as any client with the database's rights could run it, bypassing runledger. */
type Backend = {
  name: string;
  fresh(): Promise<string>;
  query<R>(db: string, sql: string, params?: unknown[]): Promise<R[]>;
  /** Runs `sql` with the immutability triggers out of the way (SQLite: dropped; PostgreSQL: session_replication_role = replica). */
  bypass(db: string, statements: Array<{ sql: string; params: unknown[] }>): Promise<void>;
  /** Every byte the ledger holds, as text. */
  dump(db: string): Promise<string>;
  close(): Promise<void>;
};

function sqliteBackend(): Backend {
  const dir = tempDir();
  let n = 0;
  const withDb = <T>(db: string, work: (raw: Database.Database) => T): T => {
    const raw = new Database(db);
    try {
      return work(raw);
    } finally {
      raw.close();
    }
  };
  return {
    name: 'sqlite',
    fresh: async () => join(dir, `ledger-${++n}.db`),
    query: async <R>(db: string, sql: string, params: unknown[] = []) =>
      withDb(db, (raw) => {
        const st = raw.prepare(sql.replaceAll(/\$\d+/g, '?'));
        return (st.reader ? st.all(...params) : (st.run(...params), [])) as R[];
      }),
    bypass: async (db, statements) =>
      withDb(db, (raw) => {
        raw.exec('DROP TRIGGER events_are_immutable; DROP TRIGGER events_are_never_deleted; DROP TRIGGER runledger_meta_is_fixed;');
        for (const { sql, params } of statements) raw.prepare(sql.replaceAll(/\$\d+/g, '?')).run(...params);
      }),
    dump: async (db) => {
      withDb(db, (raw) => raw.pragma('wal_checkpoint(TRUNCATE)'));
      return readFileSync(db).toString('latin1');
    },
    close: async () => undefined,
  };
}

function postgresBackend(url: string): Backend {
  const schemas = pgSchemas(url);
  const schemaOf = (db: string) => new URL(db).searchParams.get('schema') as string;
  const withClient = async <T>(db: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`SET search_path TO ${pg.escapeIdentifier(schemaOf(db))}`);
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    fresh: () => schemas.fresh(),
    query: (db, sql, params = []) => withClient(db, async (client) => (await client.query(sql, params)).rows),
    bypass: (db, statements) =>
      withClient(db, async (client) => {
        // A superuser skips every ordinary trigger this way, without dropping one.
        await client.query('BEGIN; SET LOCAL session_replication_role = replica');
        for (const { sql, params } of statements) await client.query(sql, params);
        await client.query('COMMIT');
      }),
    dump: (db) =>
      withClient(db, async (client) => {
        const tables = (await client.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1`, [schemaOf(db)])).rows;
        let text = '';
        for (const { name } of tables) text += (await client.query<{ t: string }>(`SELECT coalesce(string_agg(x::text, E'\\n'), '') AS t FROM ${pg.escapeIdentifier(name)} x`)).rows[0]?.t ?? '';
        return text;
      }),
    close: () => schemas.dropAll(),
  };
}

const backends: Backend[] = [sqliteBackend(), ...(TEST_PG_URL ? [postgresBackend(TEST_PG_URL)] : [])];
if (!TEST_PG_URL) {
  console.warn(pgSkipMessage('signing'));
  describe.skip(pgSkipMessage('signing'), () => test('signing against PostgreSQL', () => undefined));
}
afterAll(async () => {
  for (const backend of backends) await backend.close();
});

const keys = tempDir();
const owner = keyPair(keys, 'owner');
const attacker = keyPair(keys, 'attacker');
const signedEnv = { RUNLEDGER_SIGNING_KEY: owner.privatePath };

async function ok(db: string, args: string[], env: Record<string, string> = signedEnv): Promise<string> {
  const r = await run(['--db', db, ...args], env);
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Five events, every one appended by the CLI with `env`'s signing key. */
async function session(db: string, env: Record<string, string> = signedEnv): Promise<void> {
  await ok(db, ['define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'UTC'], env);
  await ok(db, ['succeed', await ok(db, ['start', 'etl', '2026-11-02'], env), '--metrics', '{"rows":5}'], env);
  await ok(db, ['fail', await ok(db, ['start', 'etl', '2026-11-03'], env), '--error', 'late'], env);
}

type Row = { position: number | string; event_id: string; payload: string; prev_hash: string; hash: string; signature: string | null };

describe.each(backends)('signing on $name', (backend) => {
  test('every appended event is signed, verify --public-key says ok, and no key is stored in the ledger', async () => {
    const db = await backend.fresh();
    await session(db);
    // The library path: openLedger's signingKey option.
    const ledger = await openLedger({ db, signingKey: owner.privatePath, clock: () => Date.parse('2026-11-05T01:00:00Z'), actor: 'lib' });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl', date: '2026-11-04' })).runId });
    await ledger.close();
    const rows = await backend.query<Row>(db, 'SELECT position, signature FROM events ORDER BY position');
    expect(rows).toHaveLength(7);
    for (const row of rows) expect(row.signature).toMatch(/^ed25519:[A-Za-z0-9+/]{86}==$/);
    const r = await run(['--db', db, 'verify', '--public-key', owner.publicPath]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok: 7 events, chain intact, every event signed (ed25519)');
    const json = JSON.parse((await run(['--db', db, 'verify', '--json', '--public-key', owner.publicPath])).stdout);
    expect(json).toMatchObject({ ok: true, signatures: { scheme: 'ed25519', ok: true, position: null }, meta: { ok: true } });
    const bytes = await backend.dump(db);
    const keyBody = owner.privatePem.split('\n').slice(1, -2).join('');
    expect(keyBody.length).toBeGreaterThan(40);
    expect(bytes).not.toContain(keyBody);
    expect(bytes).not.toContain(owner.privatePath);
  });

  test('an event appended with INSERT rights but without the key (triggers intact) is named: position and event id, exit 7', async () => {
    const db = await backend.fresh();
    await session(db);
    // The attacker runs runledger itself with no key: its event hashes onto the chain perfectly.
    const forger = await openLedger({ db, signingKey: null, clock: () => Date.parse('2026-11-05T01:00:00Z'), actor: 'mallory' });
    await forger.succeed({ runId: (await forger.start({ pipeline: 'etl', date: '2026-11-04' })).runId });
    await forger.close();
    // Without a key the chain is intact: only the signature shows the forgery.
    expect((await run(['--db', db, 'verify'])).code).toBe(0);
    const [forged] = await backend.query<Row>(db, 'SELECT position, event_id FROM events WHERE position = 6');
    const r = await run(['--db', db, 'verify', '--public-key', owner.publicPath]);
    expect(r.code).toBe(7);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`position 6, event ${forged?.event_id}: it carries no signature`);
    const json = JSON.parse((await run(['--db', db, 'verify', '--json', '--public-key', owner.publicPath])).stdout);
    // head and events describe the chain, which holds to the ledger's real head (7: the forger appended two); the signature fails at 6.
    expect(json).toMatchObject({ ok: false, events: 7, firstBadPosition: 6, head: { position: 7 }, signatures: { ok: false, position: 6, eventId: forged?.event_id } });
    expect(r.stderr).toContain('the chain up to 7:');
    // The chain broken after the bad signature is the graver finding: exit 5 at 7, the signature failure still reported.
    await backend.bypass(db, [{ sql: `UPDATE events SET hash = $1 WHERE position = 7`, params: ['0'.repeat(64)] }]);
    const broken = await run(['--db', db, 'verify', '--json', '--public-key', owner.publicPath]);
    expect(broken.code).toBe(5);
    expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false, events: 6, firstBadPosition: 7, head: { position: 6 }, signatures: { ok: false, position: 6 } });
    expect((await run(['--db', db, 'verify', '--public-key', owner.publicPath])).code).toBe(5);
  });

  test('an event signed with another key is reported as a wrong signature; a wrong public key fails at the first event', async () => {
    const db = await backend.fresh();
    await session(db);
    await ok(db, ['start', 'etl', '2026-11-03'], { RUNLEDGER_SIGNING_KEY: attacker.privatePath });
    const r = await run(['--db', db, 'verify', '--public-key', owner.publicPath]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/position 6, event [0-9A-Z]{26}: its signature does not match its hash under this public key/);
    const wrongKey = await run(['--db', db, 'verify', '--public-key', attacker.publicPath]);
    expect(wrongKey.code).toBe(7);
    expect(wrongKey.stderr).toMatch(/position 1, event [0-9A-Z]{26}: its signature does not match/);
  });

  test('an event rewritten and the chain re-hashed after it, past the triggers, keeps a valid chain but fails the signature check', async () => {
    const db = await backend.fresh();
    await session(db);
    const rows = await backend.query<Row>(db, 'SELECT position, payload, prev_hash, hash FROM events ORDER BY position');
    // Position 3 (the first success, rows 5) becomes rows 500; every later link is recomputed, as a careful forger would.
    const statements: Array<{ sql: string; params: unknown[] }> = [];
    let prev = '';
    for (const row of rows) {
      const position = Number(row.position);
      if (position < 3) {
        prev = row.hash;
        continue;
      }
      const payload = position === 3 ? row.payload.replace('"rows":5', '"rows":500') : row.payload;
      expect(payload === row.payload).toBe(position !== 3);
      const hash = chainHash(prev, payload, sha256Hex);
      statements.push({ sql: 'UPDATE events SET payload = $1, prev_hash = $2, hash = $3 WHERE position = $4', params: [payload, prev, hash, position] });
      prev = hash;
    }
    await backend.bypass(db, statements);
    expect((await run(['--db', db, 'verify'])).code).toBe(0);
    const r = await run(['--db', db, 'verify', '--public-key', owner.publicPath]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/position 3, event [0-9A-Z]{26}: its signature does not match its hash/);
  });

  test('HMAC: hmac:<secret> signs, --signing-secret (or the same variable) verifies, a wrong secret is reported', async () => {
    const db = await backend.fresh();
    const env = { RUNLEDGER_SIGNING_KEY: `hmac:${HMAC_SECRET}` };
    await session(db, env);
    const rows = await backend.query<Row>(db, 'SELECT signature FROM events ORDER BY position');
    for (const row of rows) expect(row.signature).toMatch(/^hmac-sha256:/);
    expect((await run(['--db', db, 'verify', '--signing-secret', HMAC_SECRET])).code).toBe(0);
    const fromEnv = await run(['--db', db, 'verify', '--signing-secret'], env);
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toContain('every event signed (hmac-sha256)');
    const wrong = await run(['--db', db, 'verify', '--signing-secret', `${HMAC_SECRET}x`]);
    expect(wrong.code).toBe(7);
    expect(wrong.stderr).toMatch(/position 1, event [0-9A-Z]{26}: its signature does not match its hash under this secret/);
    expect(await backend.dump(db)).not.toContain(HMAC_SECRET);
    // An Ed25519 check of an HMAC-signed ledger says so instead of passing.
    const mixed = await run(['--db', db, 'verify', '--public-key', owner.publicPath]);
    expect(mixed.code).toBe(7);
    expect(mixed.stderr).toContain('its signature is not an Ed25519 one (hmac-sha256)');
  });

  test('export carries the signatures and import keeps them: the copy verifies with the key; a forged export line is caught after import', async () => {
    const db = await backend.fresh();
    await session(db);
    const file = join(tempDir(), 'ledger.jsonl');
    await ok(db, ['export', '--out', file], {});
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[1]).toMatch(/^\{"prevHash":"[0-9a-f]{64}","hash":"[0-9a-f]{64}","signature":"ed25519:[^"]+","event":\{/);
    const copy = await backend.fresh();
    // Imported without any key in the environment: the signatures come from the file.
    await ok(copy, ['import', file], {});
    expect((await run(['--db', copy, 'verify', '--public-key', owner.publicPath])).code).toBe(0);
    // The same file with one signature stripped imports (the chain holds) but fails the signature check.
    const stripped = join(tempDir(), 'stripped.jsonl');
    writeFileSync(stripped, [lines[0], (lines[1] as string).replace(/"signature":"[^"]+",/, ''), ...lines.slice(2)].join('\n') + '\n');
    const third = await backend.fresh();
    await ok(third, ['import', stripped], {});
    const r = await run(['--db', third, 'verify', '--public-key', owner.publicPath]);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('position 1, event');
  });

  test('an unsigned export (an older one) still imports and replays; imported with a key set, its events are signed', async () => {
    const fixture = join(import.meta.dirname, '../fixtures/replay/acceptance.jsonl');
    const plain = await backend.fresh();
    await ok(plain, ['import', fixture], {});
    expect((await run(['--db', plain, 'verify'])).code).toBe(0);
    expect((await run(['--db', plain, 'verify', '--public-key', owner.publicPath])).code).toBe(7);
    expect((await run(['replay', fixture, '--pipeline', 'etl_orders', '--json'])).code).toBe(0);
    const signed = await backend.fresh();
    await ok(signed, ['import', fixture]);
    expect((await run(['--db', signed, 'verify', '--public-key', owner.publicPath])).code).toBe(0);
    // A ledger signed only from some position on verifies with --signed-from.
    await ok(plain, ['start', 'etl_orders', '2026-11-04', '--force']);
    expect((await run(['--db', plain, 'verify', '--public-key', owner.publicPath, '--signed-from', '11'])).code).toBe(0);
    expect((await run(['--db', plain, 'verify', '--public-key', owner.publicPath, '--signed-from', '10'])).code).toBe(7);
  });

  test('verify covers runledger_meta: a changed, added or (past the triggers) removed row fails it with exit 5', async () => {
    const db = await backend.fresh();
    await session(db, {});
    expect((await run(['--db', db, 'verify'])).code).toBe(0);
    await backend.query(db, `UPDATE runledger_meta SET value = '1' WHERE key = 'schemaVersion'`);
    let r = await run(['--db', db, 'verify']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('runledger_meta says schemaVersion = "1" where this ledger\'s tables say "2"');
    await backend.query(db, `UPDATE runledger_meta SET value = '2' WHERE key = 'schemaVersion'`);
    await backend.query(db, `INSERT INTO runledger_meta (key, value) VALUES ('signedFrom', '999')`);
    r = await run(['--db', db, 'verify', '--json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, firstBadPosition: null, meta: { ok: false, problem: expect.stringContaining('"signedFrom"') } });
    await backend.bypass(db, [{ sql: `DELETE FROM runledger_meta WHERE key IN ('signedFrom', 'format')`, params: [] }]);
    r = await run(['--db', db, 'verify']);
    // PostgreSQL's adapter checks the format row when it opens a ledger and refuses the schema outright.
    expect(r.code).toBe(backend.name === 'sqlite' ? 5 : 2);
    expect(r.stderr).toContain(backend.name === 'sqlite' ? 'runledger_meta lacks its format row' : 'has a runledger_meta table that runledger did not write');
  });

  test('a version-1 ledger is migrated (a signature column, schemaVersion 2) when a signing process opens it, and signs from then on', async () => {
    const db = await backend.fresh();
    await session(db, {});
    // Back to the version-1 shape: no signature column.
    await backend.query(db, 'ALTER TABLE events DROP COLUMN signature');
    await backend.query(db, `UPDATE runledger_meta SET value = '1' WHERE key = 'schemaVersion'`);
    expect((await run(['--db', db, 'verify'])).code).toBe(0);
    await ok(db, ['start', 'etl', '2026-11-03']);
    const meta = await backend.query<{ value: string }>(db, `SELECT value FROM runledger_meta WHERE key = 'schemaVersion'`);
    expect(meta[0]?.value).toBe('2');
    const rows = await backend.query<Row>(db, 'SELECT position, signature FROM events ORDER BY position');
    expect(rows.map((row) => row.signature === null)).toEqual([true, true, true, true, true, false]);
    expect((await run(['--db', db, 'verify', '--public-key', owner.publicPath, '--signed-from', '6'])).code).toBe(0);
  });
});

describe('every append path signs: the runner, ingest and serve\'s write API', () => {
  const openlineage = join(import.meta.dirname, '../../examples/openlineage/airflow-orders.jsonl');
  const unsignedPositions = async (db: string) => (await backends[0]?.query<Row>(db, 'SELECT position FROM events WHERE signature IS NULL'))?.map((r) => r.position);

  test('backfill (the runner) and ingest openlineage', async () => {
    const dir = tempDir();
    const db = join(dir, 'runner.db');
    await ok(db, ['define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'UTC']);
    await ok(db, ['backfill', 'etl', '--from', '2026-11-02', '--to', '2026-11-03', '--', process.execPath, '-e', '0']);
    expect(await unsignedPositions(db)).toEqual([]);
    expect((await run(['--db', db, 'verify', '--public-key', owner.publicPath])).stdout).toMatch(/ok: 5 events, chain intact, every event signed/);
    const ingested = join(dir, 'ingested.db');
    await ok(ingested, ['define', 'unrelated', '--schedule', '@daily', '--start', '2026-11-02']);
    await ok(ingested, ['ingest', 'openlineage', openlineage, '--openlineage-auto'], { ...signedEnv, RUNLEDGER_NOW: '2026-11-05T12:00:00Z' });
    expect(await unsignedPositions(ingested)).toEqual([]);
    expect((await run(['--db', ingested, 'verify', '--public-key', owner.publicPath])).code).toBe(0);
  });

  test('serve --write-token (the built binary) signs what is posted', async () => {
    const db = join(tempDir(), 'served.db');
    await ok(db, ['define', 'unrelated', '--schedule', '@daily', '--start', '2026-11-02']);
    const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', '--write-token', 's3cret-token-0123456789', '--openlineage-auto'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RUNLEDGER_NOW: '2026-11-05T12:00:00Z', ...signedEnv },
    });
    try {
      const address = await servingAddress(child);
      const body = `[${readFileSync(openlineage, 'utf8').trim().split('\n').join(',')}]`;
      const res = await fetch(`${address}/api/v1/lineage`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret-token-0123456789' }, body });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await backends[0]?.query<{ n: number }>(db, 'SELECT count(*) AS n FROM events'))?.[0]?.n).toBeGreaterThan(3);
    expect(await unsignedPositions(db)).toEqual([]);
    expect((await run(['--db', db, 'verify', '--public-key', owner.publicPath])).code).toBe(0);
  });
});

describe('bad signing input is refused with one line, exit 2, before anything is written', () => {
  test('a key file that does not exist, a non-Ed25519 key, a short HMAC secret', async () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    const rsa = join(dir, 'rsa.pem');
    writeFileSync(rsa, generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    for (const [key, says] of [
      [join(dir, 'missing.pem'), /cannot read the key file .*ENOENT/],
      [rsa, /is rsa, not Ed25519/],
      ['hmac:short', /has 5 characters; use at least 16/],
      ['', /RUNLEDGER_SIGNING_KEY is set but empty; set it to hmac:<secret> or .*, or unset it to append unsigned/],
      ['  ', /RUNLEDGER_SIGNING_KEY is set but empty/],
    ] as const) {
      const r = await run(['--db', db, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02'], { RUNLEDGER_SIGNING_KEY: key });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(says);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await run(['--db', db, 'status'])).code).toBe(4);
    // The library refuses an empty key too, rather than appending unsigned.
    await expect(openLedger({ db, signingKey: '' })).rejects.toThrow(/set but empty/);
    expect((await run(['--db', db, 'status'])).code).toBe(4);
    const both = await run(['--db', db, 'verify', '--public-key', owner.publicPath, '--signing-secret', HMAC_SECRET]);
    expect(both.code).toBe(2);
  });
});

describe('verify refuses signature options that would check nothing (exit 2, one line)', () => {
  test('--signed-from past the head, --signed-from without a key, a private key passed as --public-key', async () => {
    const db = join(tempDir(), 'l.db');
    await session(db);
    const refused = async (args: string[], says: RegExp) => {
      const r = await run(['--db', db, 'verify', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(says);
    };
    await refused(['--public-key', owner.publicPath, '--signed-from', '6'], /--signed-from 6 is past the ledger's last event \(position 5\); pass a position up to 5/);
    await refused(['--signed-from', '3'], /--signed-from .* needs a key to check them with; add --public-key <file> or --signing-secret/);
    await refused(['--json', '--signed-from', '3'], /needs a key/);
    await refused(['--public-key', owner.privatePath], /holds a private key; pass the public key; derive it with openssl pkey -in .* -pubout/);
    // The last event is a position signatures can start from.
    expect((await run(['--db', db, 'verify', '--public-key', owner.publicPath, '--signed-from', '5'])).code).toBe(0);
  });
});

test('the signing key stays out of children and out of stored texts: the HMAC secret alone is a known secret too', () => {
  const env = { RUNLEDGER_SIGNING_KEY: `hmac:${HMAC_SECRET}`, PATH: '/bin' };
  expect(childEnvironment(env, false)).toEqual({ PATH: '/bin' });
  expect(knownSecrets(undefined, env)).toContain(HMAC_SECRET);
});
