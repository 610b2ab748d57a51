// Dates that wait for a place in a full pool (issue 39, item 5) say so in `pending`, `status` and the web view,
// from the ledger alone: the definitions' pools, the live runs, and the pool size each runner recorded with its start.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { createServer } from '../../src/serve/create-server.js';
import { poolWait } from '../../projections/views/pool-wait.js';
import { tempDir } from '../support/run-cli.js';

const NOW = '2026-11-04T01:00:00Z';
let db: string;
let ledger: Ledger;
let app: FastifyInstance;
let address: string;
let heldBy: string;

beforeAll(async () => {
  db = join(tempDir('runledger-pools-'), 'ledger.db');
  ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'alice' });
  for (const pipeline of ['loads', 'reports']) await ledger.define({ pipeline, schedule: '@daily', start: '2026-11-01', pool: 'warehouse', priority: 5 });
  await ledger.define({ pipeline: 'elsewhere', schedule: '@daily', start: '2026-11-01' });
  // A runner given --pool warehouse=1 holds the pool's one place.
  heldBy = (await ledger.start({ pipeline: 'loads', date: '2026-11-01', pool: { name: 'warehouse', size: 1 } })).runId;
  app = await createServer({ ledger, clock: () => Date.parse(NOW) });
  address = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app.close();
  await ledger.close();
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--db', db, '--now', NOW, ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, clock: () => 0, isTTY: false, columns: 400 }, extraCommands);
  return { code, stdout, stderr };
}

describe('a full pool', () => {
  test('pending names the pool, its size and the run that holds the place; --json has it as poolWait', async () => {
    const text = await cli(['pending', 'reports']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('waiting for a place in pool warehouse: 1 of 1 place taken (loads 2026-11-01)');
    const json = await cli(['pending', 'reports', '--json']);
    expect(JSON.parse(json.stdout).poolWait).toEqual({ pool: 'warehouse', size: 1, running: [{ pipeline: 'loads', date: '2026-11-01', runId: heldBy }] });
    // A pipeline outside the pool waits for nothing.
    expect(JSON.parse((await cli(['pending', 'elsewhere', '--json'])).stdout).poolWait).toBeUndefined();
    expect((await cli(['pending', 'elsewhere'])).stdout).not.toContain('waiting for a place');
  });

  test('status says it in PENDING and in --json, for every pipeline of the pool with dates that could start', async () => {
    const text = await cli(['status', '--wide']);
    const line = (name: string) => text.stdout.split('\n').find((l) => l.startsWith(name)) ?? '';
    expect(line('reports')).toContain('waiting for a place in pool warehouse: 1 of 1 place taken (loads 2026-11-01)');
    expect(line('loads')).toContain('waiting for a place in pool warehouse');
    expect(line('elsewhere')).not.toContain('waiting');
    const json = JSON.parse((await cli(['status', '--json'])).stdout) as { pipelines: Array<{ pipeline: string; poolWait?: { size: number } }> };
    expect(json.pipelines.find((p) => p.pipeline === 'reports')?.poolWait?.size).toBe(1);
    expect(json.pipelines.find((p) => p.pipeline === 'elsewhere')?.poolWait).toBeUndefined();
  });

  test('the web view shows it on the overview and on the pipeline page, with the pool and priority of the definition', async () => {
    const overview = await (await fetch(`${address}/`)).text();
    const row = overview.slice(overview.indexOf('data-pipeline="reports"'));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain('data-fact="pool-wait">waiting for a place in pool warehouse: 1 of 1 place taken (loads 2026-11-01)');
    const page = await (await fetch(`${address}/pipelines/reports`)).text();
    expect(page).toContain('<b>Pool</b> warehouse');
    expect(page).toContain('<b>Priority</b> 5');
    expect(page).toMatch(/data-fact="pool-wait"><b>Waiting<\/b> for a place in pool warehouse: 1 of 1 place taken/);
    expect(await (await fetch(`${address}/pipelines/elsewhere`)).text()).not.toContain('pool-wait');
  });
});

describe('define --pool --priority', () => {
  test('when a pipeline has recorded dates then pool and priority change without --effective (they move no slot), and back to the default', async () => {
    const changed = await cli(['define', 'loads', '--priority', '7', '--pool', 'lake']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('pool: "warehouse" -> "lake"');
    expect(changed.stdout).toContain('priority: 5 -> 7');
    const back = await cli(['define', 'loads', '--priority', '1', '--no-pool']);
    expect(back.code, back.stderr).toBe(0);
    const { definition } = await ledger.pipeline('loads');
    expect([definition.pool, definition.priority]).toEqual([undefined, undefined]);
    const bad = await cli(['define', 'loads', '--priority', 'high']);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, "runledger: --priority must be a whole number (higher starts first), not 'high'"]);
  });
});

describe('poolWait', () => {
  const run = (runId: string, position: number, size: number | null) => ({ pipeline: 'a', date: `2026-11-0${position}`, runId, position, size });

  test('a pool with a free place, or whose live runs recorded no size, does not wait', () => {
    expect(poolWait('warehouse', [run('r1', 1, 2)])).toBeNull();
    expect(poolWait('warehouse', [run('r1', 1, null), run('r2', 2, null)])).toBeNull();
    expect(poolWait('warehouse', [])).toBeNull();
  });

  test('the size is the one the newest start recorded, and the runs are listed oldest first', () => {
    // A scheduler restarted with --pool warehouse=3 counts from its first start on.
    expect(poolWait('warehouse', [run('r2', 2, 3), run('r1', 1, 2)])).toBeNull();
    expect(poolWait('warehouse', [run('r2', 2, 2), run('r1', 1, 3)])).toEqual({
      pool: 'warehouse',
      size: 2,
      running: [
        { pipeline: 'a', date: '2026-11-01', runId: 'r1' },
        { pipeline: 'a', date: '2026-11-02', runId: 'r2' },
      ],
    });
  });
});
