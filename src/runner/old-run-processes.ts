import { readdir, readFile } from 'node:fs/promises';
import type { Ledger } from '../ledger/ledger.js';
import { processMetadata } from '../runtime.js';

/**
 * Why a stalled run must not be taken over yet, or null when it may: its `RunStarted` was recorded on this
 * host (its metadata's `host` and `pid`), and a process that carries the run's id (`RUNLEDGER_RUN_ID`, which
 * every command gets) is still alive here. That happens when a runner's lease ran out while it lived (a paused
 * process, a database out of reach), or while a killed runner's watchdog is still stopping the command. The
 * next attempt then waits for that process instead of running beside it. A run started on another host cannot
 * be checked: its lease alone decides there. Reads `/proc` (Linux); elsewhere nothing is found.
 *
 * @example
 * await oldRunProcesses(ledger, '01M6J13TM0N216Y1PE1F9CJNVS') // 'run 01M6… still has a process here (pid 4242, …)'
 */
export async function oldRunProcesses(ledger: Ledger, runId: string, procDir = '/proc'): Promise<string | null> {
  const started = await runStartedOn(ledger, runId);
  if (started === null || started.host !== processMetadata().host) return null;
  const pid = await processWithRunId(runId, procDir);
  if (pid === null) return null;
  return `run ${runId} (started by pid ${started.pid ?? '?'} on ${started.host}) still has a process running here (pid ${pid}); it is taken over once that process has ended`;
}

async function runStartedOn(ledger: Ledger, runId: string): Promise<{ host: string; pid: number | undefined } | null> {
  for await (const batch of ledger.store.read({ runId, types: ['RunStarted'] })) {
    for (const event of batch) {
      if (event.type === 'RunStarted' && event.metadata.host !== undefined) return { host: event.metadata.host, pid: event.metadata.pid };
    }
  }
  return null;
}

/** The pid of a live process whose environment holds `RUNLEDGER_RUN_ID=<runId>`, or null (zombies have none to read). */
async function processWithRunId(runId: string, procDir: string): Promise<number | null> {
  let names: string[];
  try {
    names = await readdir(procDir);
  } catch {
    return null;
  }
  const needle = Buffer.from(`RUNLEDGER_RUN_ID=${runId}\0`);
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = await readFile(`${procDir}/${name}/environ`);
      if (environ.subarray(0, needle.length).equals(needle) || environ.includes(Buffer.concat([Buffer.from('\0'), needle]))) return Number(name);
    } catch {
      // Gone meanwhile, or another user's: not ours to wait for.
    }
  }
  return null;
}
