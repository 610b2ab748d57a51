import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { docFiles, ROOT } from './doc-files.js';

// The README and the guides link to each other and to sections: every relative link must lead to a file that
// exists and, with a #fragment, to a heading of that file (GitHub's anchors: lower case, punctuation dropped,
// spaces as hyphens).

/** GitHub's anchor of a heading. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headings(markdown: string): string[] {
  let fenced = false;
  const found: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (m?.[1]) found.push(anchor(m[1]));
  }
  return found;
}

/** Links of a Markdown text outside code: `[text](target)`, without the web ones. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((t) => !/^[a-z]+:/.test(t));
}

describe('links between the README and the guides', () => {
  test.each(docFiles())('%s links to files and headings that exist', (file) => {
    const broken: string[] = [];
    for (const target of links(readFileSync(join(ROOT, file), 'utf8'))) {
      const [path = '', fragment] = target.split('#');
      const to = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), path);
      if (!existsSync(to)) broken.push(`${target}: no file ${relative(ROOT, to)}`);
      else if (fragment !== undefined && to.endsWith('.md') && !headings(readFileSync(to, 'utf8')).includes(fragment)) broken.push(`${target}: no heading #${fragment} in ${relative(ROOT, to)}`);
    }
    expect(broken).toEqual([]);
  });

  test("the README's map links every guide under docs/", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(links(readme).map((t) => t.split('#')[0]));
    expect(docFiles().filter((f) => f.startsWith('docs/') && !linked.has(f))).toEqual([]);
  });
});
