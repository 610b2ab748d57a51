import { terminalText } from '../format/terminal-text.js';
import { formatDuration, isQuietSkip, quietSkipLine } from './format-summary.js';
import type { RunProgress, RunReport } from './run-types.js';
import { inZone } from '../format/zoned-instant.js';

export type ProgressReporterOptions = {
  /** Where progress goes (stderr): a bar redrawn in place on a terminal, else one line per slot. */
  write: (text: string) => void;
  isTTY: boolean;
  /** How many slots are planned. */
  total: number;
  /** Shown first, e.g. `backfill etl_orders`. */
  label: string;
  /** Where the commands' stdout lines go (stdout, or stderr when stdout carries JSON). */
  childStdout: (line: string) => void;
  /** Where the commands' stderr lines go (default: `write`). */
  childStderr?: (line: string) => void;
  /** The pipeline's time zone: a retry's time is shown in it, with its offset (default UTC). */
  zone?: string;
  monotonic?: () => number;
};

export type ProgressReporter = { onProgress(progress: RunProgress): void; close(): void };

const BAR_WIDTH = 20;
const CLEAR_LINE = '\r\x1b[2K';

/**
 * Shows a backfill as it runs. On a terminal: one status line redrawn with
 * `\r` (bar, done/failed counts, running slots, elapsed time), with failures
 * and skips printed above it so they stay visible. Elsewhere (CI logs, pipes):
 * one plain line per finished slot, nothing redrawn.
 *
 * @example
 * const progress = createProgressReporter({ write: ctx.note, isTTY: false, total: 3, label: 'backfill etl_orders', childStdout: ctx.out });
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const clock = options.monotonic ?? (() => performance.now());
  const began = clock();
  const running = new Set<string>();
  let finished = 0;
  let failed = 0;
  let barShown = false;

  const bar = (): string => {
    const filled = options.total === 0 ? BAR_WIDTH : Math.round((finished / options.total) * BAR_WIDTH);
    const now = [...running].join(', ');
    return (
      `${options.label} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${finished}/${options.total} done` +
      `${failed > 0 ? `, ${failed} failed` : ''}${now ? ` · running ${now}` : ''} · ${formatDuration(clock() - began)}`
    );
  };
  let closed = false;
  /** Slots not started because the runner stopped, held back to print as one line. */
  let quiet: RunReport[] = [];
  let failedDate: string | null = null;
  const redraw = () => {
    if (!options.isTTY || closed) return;
    options.write(`${CLEAR_LINE}${bar()}`);
    barShown = true;
  };
  /** Prints a whole line without tearing the bar: clear it, print, draw it again. */
  const above = (print: () => void) => {
    if (options.isTTY && barShown) options.write(CLEAR_LINE);
    print();
    redraw();
  };
  const timer = options.isTTY ? setInterval(redraw, 1000) : undefined;
  timer?.unref();

  const flushQuiet = () => {
    if (quiet.length === 0) return;
    const [only] = quiet;
    const what = quiet.length === 1 && only ? describe(only) : quietSkipLine(quiet, failedDate);
    const line = `${options.label} ${what} [${finished}/${options.total}]\n`;
    quiet = [];
    above(() => options.write(line));
  };

  return {
    onProgress(progress) {
      if (progress.kind !== 'finished' || !isQuietSkip(progress.report) || progress.report.skipReason !== quiet[0]?.skipReason) flushQuiet();
      switch (progress.kind) {
        case 'started':
          running.add(progress.run.date);
          redraw();
          return;
        case 'output': {
          const sink = progress.stream === 'stdout' ? options.childStdout : (options.childStderr ?? ((line: string) => options.write(`${line}\n`)));
          above(() => sink(progress.line));
          return;
        }
        case 'note':
          above(() => options.write(`runledger: ${terminalText(progress.text, { keepLines: true })}\n`));
          return;
        case 'retry':
          // Not finished: the date waits for its next attempt, and the bar does not count it yet.
          running.delete(progress.date);
          above(() => options.write(`${options.label} ${progress.date} failed (attempt ${progress.attempt - 1} of ${progress.of}): ${firstLine(progress.error)}; attempt ${progress.attempt} at ${inZone(progress.nextAt, options.zone ?? 'UTC')}\n`));
          return;
        case 'finished': {
          const r = progress.report;
          running.delete(r.date);
          finished += 1;
          if (r.status === 'failed') {
            failed += 1;
            failedDate ??= r.date;
          }
          if (isQuietSkip(r)) {
            quiet.push(r);
            redraw();
            return;
          }
          const line = `${options.label} ${describe(r)} [${finished}/${options.total}]\n`;
          if (!options.isTTY || r.status !== 'success') above(() => options.write(line));
          else redraw();
          return;
        }
        default: {
          const unknown: never = progress;
          throw new Error(`progress: unhandled ${JSON.stringify(unknown)}`);
        }
      }
    },
    close() {
      flushQuiet();
      if (timer) clearInterval(timer);
      if (options.isTTY && barShown) options.write(CLEAR_LINE);
      barShown = false;
      closed = true;
    },
  };
}

/** `2026-11-02 success (attempt 1, 0.12s)`, `2026-11-03 failed: exited with code 1: …`, `2026-11-04 skipped: …` */
export function describe(r: RunReport): string {
  if (r.status === 'skipped') return `${r.date} skipped: ${r.note ?? r.skipReason ?? ''}`;
  const how = `attempt ${r.retry ? `${r.retry.attempt} of ${r.retry.of}` : (r.attempt ?? '-')}, ${formatDuration(r.durationMs)}`;
  if (r.status === 'success') return `${r.date} success (${how})`;
  if (r.status === 'unrecorded') return `${r.date} unrecorded (${how}): ${firstLine(r.error ?? 'its outcome could not be recorded')}`;
  if (r.status === 'interrupted') return `${r.date} interrupted (${how}): recorded as interrupted, pending; the same command resumes it`;
  return `${r.date} failed (${how}): ${firstLine(r.error ?? r.code ?? 'failed')}`;
}

/** The first and last line of an error (a stderr tail), its control characters shown as escapes: it goes to a terminal. */
function firstLine(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return terminalText(lines.length <= 1 ? text.trim() : `${lines[0]} … ${lines.at(-1)}`);
}
