// The console blocks of the docs, read from Markdown: what the doc-test harness runs (see docs/contributing.md,
// "Console blocks are tests"). Pure: text in, blocks out.

/** One `$ ` command of a block and the output shown after it. */
export type ConsoleStep = {
  /** The command as bash runs it: continuation lines (`\` at the end) and here-documents included. */
  command: string;
  /** The lines shown after the command, up to the next `$ ` line. */
  output: string;
  /** 1-based line of the `$ ` in the Markdown file. */
  line: number;
  /** The file's lines holding the output: from `from` (1-based) up to, not including, `to`. */
  outputLines: { from: number; to: number };
};

export type ConsoleBlock = {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The reason given by `<!-- doc-test: skip: reason -->`, when the block is skipped. */
  skip?: string;
  /** The fence's indentation (a block inside a list item), which every line of the block has. */
  indent: string;
  steps: ConsoleStep[];
};

/**
 * How a guide's blocks run, declared at its top (before its first `## ` heading and first console block) by
 * `<!-- doc-test: one shell -->` or `<!-- doc-test: fresh directory per block -->`, followed by the sentence that
 * tells the reader the same. A guide with console blocks and no declaration is refused.
 * - `one shell`: every block, top to bottom, in one bash in one directory, as a reader following the guide in one
 *   terminal types it.
 * - `fresh directory per block`: each block in a new empty directory, in a bash of its own.
 * A guide whose examples build on each other but need a clean slate now and then runs in one shell and names a new
 * ledger where it starts over (`export RUNLEDGER_DB=./other.db`), as the reader would.
 */
export type GuideMode = 'one shell' | 'fresh directory per block';
const MODES: readonly GuideMode[] = ['one shell', 'fresh directory per block'];
/** What the paragraph after the declaration must say, so the reader knows what the test does. */
export const MODE_SENTENCE: Record<GuideMode, RegExp> = {
  'one shell': /top to bottom in one shell/i,
  'fresh directory per block': /each example starts (in a new empty directory|on a new ledger)/i,
};

export type Guide = { file: string; mode?: GuideMode; blocks: ConsoleBlock[] };

const FENCE_OPEN = /^( *)```console\s*$/;
const DIRECTIVE = /^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$/;
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/;

/** The console blocks of one Markdown file, in order. Throws, naming file and line, on a block it cannot read. */
export function consoleBlocks(file: string, markdown: string): ConsoleBlock[] {
  return guide(file, markdown).blocks;
}

/**
 * A guide's declared mode and its console blocks. Throws, naming file and line, on a block it cannot read, and on a
 * guide with console blocks that does not declare how they run at its top, or that declares it twice.
 */
export function guide(file: string, markdown: string): Guide {
  const lines = markdown.split('\n');
  const blocks: ConsoleBlock[] = [];
  let mode: { mode: GuideMode; line: number } | undefined;
  let heading: number | undefined;
  let pending: { skip: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const directive = DIRECTIVE.exec(text);
    const declared = MODES.find((m) => m === directive?.[1]);
    if (declared) {
      if (mode) throw new Error(`${file}:${i + 1}: the guide already says how its blocks run at line ${mode.line}`);
      if (heading !== undefined || blocks.length > 0) throw new Error(`${file}:${i + 1}: <!-- doc-test: ${declared} --> goes at the top of the guide, before its first \`## \` heading and console block`);
      const paragraph = lines.slice(i + 1).join('\n').replace(/^\n+/, '').split(/\n\s*\n/)[0] ?? '';
      if (!MODE_SENTENCE[declared].test(paragraph.replace(/\s+/g, ' '))) throw new Error(`${file}:${i + 1}: the paragraph after <!-- doc-test: ${declared} --> must tell the reader so (${MODE_SENTENCE[declared].source})`);
      mode = { mode: declared, line: i + 1 };
      continue;
    }
    if (directive) {
      pending = { skip: parseSkip(file, i + 1, directive[1] ?? ''), line: i + 1 };
      continue;
    }
    if (/^## /.test(text)) heading ??= i + 1;
    const open = FENCE_OPEN.exec(text);
    if (!open) {
      // A directive applies to the block right after it (blank lines between are fine), never to one further down.
      if (pending && text.trim() !== '') throw new Error(`${file}:${pending.line}: a doc-test comment must come right before a \`\`\`console block`);
      continue;
    }
    const indent = open[1] ?? '';
    const start = i;
    const body: Array<{ text: string; line: number }> = [];
    for (i++; i < lines.length && (lines[i] ?? '').trimEnd() !== `${indent}\`\`\``; i++) {
      const raw = lines[i] ?? '';
      body.push({ text: raw.startsWith(indent) ? raw.slice(indent.length) : raw.trimStart(), line: i + 1 });
    }
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: the \`\`\`console block is never closed`);
    const block: ConsoleBlock = { file, line: start + 1, indent, steps: parseSteps(file, start + 1, body, i + 1) };
    if (pending) block.skip = pending.skip;
    blocks.push(block);
    pending = undefined;
  }
  if (pending) throw new Error(`${file}:${pending.line}: a doc-test comment must come right before a \`\`\`console block`);
  if (blocks.length > 0 && !mode) {
    throw new Error(`${file}:1: the guide has console blocks but does not say how they run; put <!-- doc-test: one shell --> (and say the guide runs top to bottom in one shell) or <!-- doc-test: fresh directory per block --> (and say each example starts on a new ledger, in a new empty directory) at its top`);
  }
  return mode ? { file, mode: mode.mode, blocks } : { file, blocks };
}

function parseSkip(file: string, line: number, text: string): string {
  const skip = /^skip:\s*(\S.*)$/.exec(text);
  if (skip?.[1]) return skip[1];
  if (text === 'continue') {
    throw new Error(`${file}:${line}: <!-- doc-test: continue --> is gone: a guide runs top to bottom in one shell (<!-- doc-test: one shell --> at its top; \`cd "$(mktemp -d)"\` where it starts over) or each block in a fresh directory`);
  }
  throw new Error(`${file}:${line}: unknown doc-test comment '${text}'; write <!-- doc-test: skip: <why it cannot run> --> before a block, or at the top of the guide <!-- doc-test: one shell --> or <!-- doc-test: fresh directory per block -->`);
}

function parseSteps(file: string, blockLine: number, body: Array<{ text: string; line: number }>, closeLine: number): ConsoleStep[] {
  const steps: Array<{ command: string[]; output: string[]; line: number; from: number }> = [];
  for (let j = 0; j < body.length; j++) {
    const { text, line } = body[j] ?? { text: '', line: 0 };
    if (!text.startsWith('$ ')) {
      const step = steps.at(-1);
      if (!step) {
        if (text.trim() === '') continue;
        throw new Error(`${file}:${line}: a \`\`\`console block starts with a \`$ \` command; use \`\`\`sh or \`\`\`text for anything else`);
      }
      step.output.push(text);
      continue;
    }
    const command = [text.slice(2)];
    // A line ending in a backslash goes on; a here-document runs to its terminator. Both are part of the command.
    while (/(^|[^\\])(\\\\)*\\$/.test(command.at(-1) ?? '') && j + 1 < body.length) command.push(body[++j]?.text ?? '');
    const heredoc = HEREDOC.exec(command.join('\n'));
    if (heredoc) {
      const end = heredoc[2] ?? '';
      for (;;) {
        if (j + 1 >= body.length) throw new Error(`${file}:${line}: the here-document ${end} is never ended`);
        const next = body[++j]?.text ?? '';
        command.push(next);
        if (next.trim() === end) break;
      }
    }
    steps.push({ command, output: [], line, from: line + command.length });
  }
  if (steps.length === 0) throw new Error(`${file}:${blockLine}: a \`\`\`console block has no \`$ \` command; use \`\`\`sh or \`\`\`text for anything else`);
  return steps.map((s, i) => ({
    command: s.command.join('\n'),
    output: trimLines(s.output.join('\n')),
    line: s.line,
    outputLines: { from: s.from, to: steps[i + 1]?.line ?? closeLine },
  }));
}

/** Trailing spaces of every line and trailing blank lines do not count (editors strip them). */
export function trimLines(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

/**
 * Lines that look like a terminal session (`$ command`) inside a fence other than ```` ```console ````: an example
 * with a prompt shows output, so it must be a console block, which runs. `file:line` for each.
 */
export function promptsOutsideConsole(file: string, markdown: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const open = /^\s*```(\S*)/.exec(text);
    if (open) fence = fence === undefined ? open[1] ?? '' : undefined;
    else if (fence !== undefined && fence !== 'console' && text.trimStart().startsWith('$ ')) found.push(`${file}:${i + 1}: ${text.trim()}`);
  });
  return found;
}

/** Every line inside a fence (any language), with its 1-based line: the code a reader copies. */
export function codeLines(markdown: string): Array<{ line: number; text: string }> {
  const found: Array<{ line: number; text: string }> = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    else if (fenced) found.push({ line: i + 1, text });
  });
  return found;
}
