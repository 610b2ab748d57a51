// Types for orders.mjs (the example ETL is plain JavaScript; this lets the
// TypeScript tests and `runledger demo` import it with checking).

export declare const RAW_COLUMNS: readonly string[];
export declare const GOLD_COLUMNS: readonly string[];
export declare const REJECT_COLUMNS: readonly string[];
export declare const SHOP_UTC_OFFSET_MINUTES: number;

export declare class PartitionError extends Error {
  constructor(message: string);
}

export interface Order {
  orderId: string;
  orderedAt: string;
  customer: string;
  city: string;
  sku: string;
  qty: number;
  unitPriceIdr: number;
  amountIdr: number;
}

export type Validation = { ok: true; order: Order } | { ok: false; reason: string };

export interface Rejected {
  /** 1-based physical line number in the raw file (the header is line 1). */
  line: number;
  reason: string;
  raw: string;
}

export interface Duplicate {
  line: number;
  orderId: string;
  firstLine: number;
}

export interface CitySummary {
  date: string;
  city: string;
  orders: number;
  items: number;
  revenueIdr: number;
}

export interface Stats {
  rawRows: number;
  valid: number;
  rejected: number;
  duplicates: number;
  cities: number;
  revenueIdr: number;
}

export declare function parseCsvLine(line: string): string[];
export declare function csvField(value: string | number): string;
export declare function isValidDate(s: unknown): boolean;
export declare function shopDateOf(text: string): string | null;
export declare function validateRow(record: Readonly<Record<string, string | undefined>>, date: string): Validation;
export declare function processOrders(
  text: string,
  date: string,
): { rawRows: number; valid: Order[]; rejected: Rejected[]; duplicates: Duplicate[] };
export declare function summarise(orders: readonly Order[], date: string): CitySummary[];
export declare function totalRevenue(rows: readonly CitySummary[]): number;
export declare function toGoldCsv(rows: readonly CitySummary[]): string;
export declare function toRejectsCsv(rejected: readonly Rejected[], date: string): string;
export declare function formatRupiah(amount: number): string;
export declare function rawFileName(date: string): string;
export declare function goldFileName(date: string): string;
export declare function rejectsFileName(date: string): string;
export declare function runPartition(
  text: string,
  date: string,
): {
  stats: Stats;
  rows: CitySummary[];
  rejected: Rejected[];
  duplicates: Duplicate[];
  goldCsv: string;
  rejectsCsv: string;
};
export declare function summaryLine(date: string, stats: Stats): string;
