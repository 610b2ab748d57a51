// The audit timeline says how many entries there are in all (issue 41: "audit ... paged with counts kept per
// pipeline"): each pipeline's read-model row counts the audit entries of its events as they are folded, so `/audit` and
// `GET /api/audit` answer "entries 1–N of TOTAL" with one sum, not a scan. Over a real socket with Node's fetch, on
// SQLite and on PostgreSQL; the count is the fold's (`verify --projections` stays clean).
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../src/serve/create-server.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { auditEntriesOf } from '../../projections/views/pipeline-history.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

const NOW = Date.parse('2026-11-06T01:00:00Z');
const clock = () => NOW;

type Store = { name: string; fresh: () => Promise<string>; cleanup: () => Promise<void> };
const stores: Store[] = [];
{
  const dir = tempDir('runledger-audit-count-');
  let n = 0;
  stores.push({ name: 'sqlite', fresh: async () => join(dir, `ledger-${++n}.db`), cleanup: async () => undefined });
}
if (TEST_PG_URL !== undefined) {
  const schemas = pgSchemas(TEST_PG_URL);
  stores.push({ name: 'postgres', fresh: () => schemas.fresh(), cleanup: () => schemas.dropAll() });
} else {
  console.log(pgSkipMessage('audit count test'));
}

const apps: FastifyInstance[] = [];
const ledgers: Ledger[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const ledger of ledgers.splice(0)) await ledger.close();
});
afterAll(async () => {
  for (const store of stores) await store.cleanup();
});

/** Every audit entry of the ledger, counted from its events (what the page's total must say). */
async function entriesOfEvents(ledger: Ledger): Promise<number> {
  let n = 0;
  for await (const batch of ledger.store.read({})) for (const event of batch) n += auditEntriesOf(event).length;
  return n;
}

async function getJson(address: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${address}${path}`);
  return { status: res.status, body: await res.json() };
}

describe.each(stores)('the audit total on $name', (store) => {
  test('the page and the API say how many entries there are in all, page after page, and an append counts', async () => {
    const db = await store.fresh();
    const ledger = await openLedger({ db, clock, actor: 'alice' });
    ledgers.push(ledger);
    // Definitions, a redefinition, forced re-runs, clears, a pause and an unpause over two pipelines: entries of every kind.
    await ledger.define({ pipeline: 'orders', schedule: '@daily', start: '2026-11-01' });
    await ledger.define({ pipeline: 'customers', schedule: '@daily', start: '2026-11-01' });
    for (const date of ['2026-11-01', '2026-11-02', '2026-11-03']) {
      const { runId } = await ledger.start({ pipeline: 'orders', date });
      await ledger.succeed({ runId });
      const forced = await ledger.start({ pipeline: 'orders', date, force: true });
      await ledger.succeed({ runId: forced.runId });
    }
    await ledger.clear({ pipeline: 'orders', dates: ['2026-11-02', '2026-11-03'], reason: 'bad upstream file' });
    await ledger.pause({ pipelines: ['customers'], reason: 'vendor outage' });
    await ledger.unpause({ pipelines: ['customers'] });
    await ledger.define({ pipeline: 'customers', schedule: '@daily', start: '2026-10-01' });
    const total = await entriesOfEvents(ledger);
    // 3 definitions (one a redefinition), 3 forced re-runs, 2 clears, a pause and an unpause.
    expect(total).toBe(10);

    const app = await createServer({ ledger, clock });
    apps.push(app);
    const address = await app.listen({ host: '127.0.0.1', port: 0 });

    // The page of now: every entry listed, and the count of all of them.
    const page = await (await fetch(`${address}/audit`)).text();
    expect(page).toContain(`data-total="${total}"`);
    expect(page).toContain(`entries 1–${total} of ${total}`);

    // The API pages by `limit`, newest first; each page carries the same total and the next page's address.
    const first = await getJson(address, '/api/audit?limit=4');
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(total);
    expect(first.body.entries).toHaveLength(4);
    expect(first.body.next).toMatch(/^\/api\/audit\?limit=4&before=\d+$/);
    const seen = [...first.body.entries];
    for (let next: string | null = first.body.next; next !== null; ) {
      const more = await getJson(address, next);
      expect(more.status).toBe(200);
      expect(more.body.total).toBe(total);
      seen.push(...more.body.entries);
      next = more.body.next;
    }
    // Walking every page lists every entry once.
    expect(seen).toHaveLength(total);
    expect(seen.map((e) => e.position)).toEqual([...seen.map((e) => e.position)].sort((a, b) => b - a));

    // An older page of the HTML says how many it lists before its event, of how many in all.
    const before = seen[4].position + 1;
    const older = await (await fetch(`${address}/audit?before=${before}`)).text();
    expect(older).toContain(`data-total="${total}"`);
    expect(older).toMatch(new RegExp(`\\d+ entries recorded before event ${before}, of ${total} in all`));

    // A page of the past is not counted from the rows of now.
    expect((await getJson(address, '/api/audit?as_of=3')).body.total).toBeNull();
    expect((await getJson(address, '/api/audit?limit=0')).status).toBe(400);
    expect((await getJson(address, '/api/audit?limit=1001')).status).toBe(400);

    // One more clear: one more entry, on the page and in the API.
    await ledger.clear({ pipeline: 'orders', dates: ['2026-11-01'], reason: 'again' });
    expect((await getJson(address, '/api/audit?limit=1')).body.total).toBe(total + 1);
    expect(await (await fetch(`${address}/audit`)).text()).toContain(`data-total="${total + 1}"`);

    // A pipeline page lists its newest 200 entries and says of how many, from its row's count; as of the head (folded
    // from the events) it says the same.
    await ledger.define({ pipeline: 'busy', schedule: '@daily', start: '2026-11-01' });
    for (let i = 0; i < 101; i++) {
      await ledger.pause({ pipelines: ['busy'], reason: `round ${i}` });
      await ledger.unpause({ pipelines: ['busy'] });
    }
    const busy = await (await fetch(`${address}/pipelines/busy`)).text();
    expect(busy).toContain('data-total="203"');
    expect(busy).toContain('The 200 most recent of 203 entries.');
    const head = (await ledger.store.head()).position;
    expect(await (await fetch(`${address}/pipelines/busy?as_of=${head}`)).text()).toContain('The 200 most recent of 203 entries.');
    expect((await getJson(address, '/api/audit?limit=1')).body.total).toBe(total + 1 + 203);

    // The count is the fold's: a fresh fold of every pipeline agrees with the rows.
    expect((await verifyProjections(ledger.store)).ok).toBe(true);
  }, 60_000);
});
