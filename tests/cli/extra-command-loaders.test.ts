import { Command } from 'commander';
import { expect, test } from 'vitest';
import type { CliContext } from '../../src/cli/cli-context.js';
import { extraCommandsFor } from '../../src/cli/extra-command-loaders.js';
import { extraCommands } from '../../src/cli/extra-commands.js';

const names = (registrars: Awaited<ReturnType<typeof extraCommandsFor>>): string[] => {
  const program = new Command();
  for (const register of registrars) register(program, {} as CliContext);
  return program.commands.map((c) => c.name());
};

test('each extra command loads the module that registers it, and a line naming none loads them all', async () => {
  const all = names(extraCommands);
  expect(all).toContain('status');
  for (const name of all) expect(names(await extraCommandsFor(name))).toContain(name);
  expect(names(await extraCommandsFor('stauts'))).toEqual(all);
  expect(names(await extraCommandsFor(undefined))).toEqual(all);
  expect(names(await extraCommandsFor('constructor'))).toEqual(all);
});
