/** Where links point: the server's addresses, or anchors inside one report file. */
export type Links = {
  overview(): string;
  pipeline(name: string): string;
  /** The pipeline page with these query parameters (a calendar or runs page), or null when the output has one page per pipeline (a report). */
  pipelinePage(name: string, params: Record<string, string>): string | null;
  /** Null when the target is not part of the output (a report has no run pages). */
  run(pipeline: string, runId: string): string | null;
  /** A date page; null when the output has none (a report). */
  date(pipeline: string, date: string): string | null;
  /** The pipeline page with its calendar narrowed to [from, to]; null when the output cannot. */
  pipelineRange(name: string, from: string, to: string): string | null;
  audit(): string;
  verify(): string;
  /** The dependency graph page, or null when the output has none (a report). */
  graph(): string | null;
  /** The same page as of a position, or null when the output cannot travel in time. */
  asOf(position: number): string | null;
};

