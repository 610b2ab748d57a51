import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, tempDir } from '../support/run-cli.js';

// The README's first session, run as written (in bash, `npx runledger` being this checkout's binary), must print
// what the README shows. Run ids are random, so they are compared as <RUN>.

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;

/** The first console block under a heading: its commands (`$ …`) and the output shown after each. */
function session(heading: string): Array<{ command: string; output: string }> {
  const from = README.indexOf(`\n${heading}\n`);
  const start = README.indexOf('```console\n', from) + '```console\n'.length;
  const lines = README.slice(start, README.indexOf('\n```', start)).split('\n');
  const steps: Array<{ command: string; output: string[] }> = [];
  for (const line of lines) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
    else steps.at(-1)?.output.push(line);
  }
  return steps.map((s) => ({ command: s.command, output: s.output.join('\n') }));
}

describe("the README's first session", () => {
  const steps = session('## A first session');

  test('uses npx runledger and sets the clock per command, never exporting RUNLEDGER_NOW', () => {
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.map((s) => s.command).join('\n')).not.toMatch(/RUNLEDGER_NOW/);
    for (const { command } of steps.filter((s) => /runledger/.test(s.command))) expect(command).toMatch(/^(RUN=\$\()?npx runledger --now \$NOW /);
  });

  test('prints exactly what the README shows', () => {
    const dir = tempDir('runledger-readme-');
    const marker = '@@step@@';
    const script = [
      `npx() { if [ "$1" = runledger ]; then shift; "${process.execPath}" "${BIN}" "$@"; else command npx "$@"; fi; }`,
      ...steps.flatMap((s) => [s.command, `echo ${marker}`]),
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, RUNLEDGER_ACTOR: 'reader' };
    const r = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(0);
    const outputs = r.stdout.split(`${marker}\n`);
    steps.forEach((step, i) => {
      expect(`$ ${step.command}\n${(outputs[i] ?? '').trimEnd().replace(ULID, '<RUN>')}`).toBe(`$ ${step.command}\n${step.output.replace(ULID, '<RUN>')}`);
    });
    expect(existsSync(join(dir, 'ledger.db'))).toBe(true);
  });
});
