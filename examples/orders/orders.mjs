// Pure functions of the example orders ETL (no I/O here; etl.mjs is the CLI).
//
// Plain Node.js ESM, no dependencies, so `runledger demo` and the tests can
// import it directly. Types for TypeScript callers live in orders.d.mts.

/** Columns every raw partition must have (any order; extra columns are ignored). */
export const RAW_COLUMNS = Object.freeze([
  'order_id',
  'ordered_at',
  'customer',
  'city',
  'sku',
  'qty',
  'unit_price_idr',
]);

/** Columns of the gold file, in order. */
export const GOLD_COLUMNS = Object.freeze(['date', 'city', 'orders', 'items', 'revenue_idr']);

/** Columns of the rejects file, in order. */
export const REJECT_COLUMNS = Object.freeze(['date', 'line', 'reason', 'raw']);

/**
 * The shop's time zone is WIB (Asia/Jakarta), UTC+07:00 all year (Indonesia
 * has no daylight saving time). An order belongs to the partition of its
 * calendar date in WIB, whatever offset the timestamp was written with.
 */
export const SHOP_UTC_OFFSET_MINUTES = 7 * 60;

/** A file-level problem (unreadable header, missing columns): the whole partition fails. */
export class PartitionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PartitionError';
  }
}

/**
 * Split one CSV line (RFC 4180 quoting: fields may be wrapped in double quotes,
 * a literal quote inside is written ""). Records spanning several lines are not
 * supported. Throws a SyntaxError on an unterminated or misplaced quote.
 * @param {string} line
 * @returns {string[]}
 */
export function parseCsvLine(line) {
  const fields = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i += 1;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q === -1) throw new SyntaxError(`unterminated quoted field at column ${fields.length + 1}`);
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(value);
      if (i === line.length) return fields;
      if (line[i] !== ',') {
        throw new SyntaxError(`unexpected character after closing quote at column ${fields.length}`);
      }
      i += 1;
    } else {
      const comma = line.indexOf(',', i);
      const value = comma === -1 ? line.slice(i) : line.slice(i, comma);
      if (value.includes('"')) {
        throw new SyntaxError(`stray quote in unquoted field at column ${fields.length + 1}`);
      }
      fields.push(value);
      if (comma === -1) return fields;
      i = comma + 1;
    }
  }
}

/**
 * Quote a value for CSV output when needed (comma, quote, line break, or
 * leading/trailing whitespace).
 * @param {string | number} value
 * @returns {string}
 */
export function csvField(value) {
  const s = String(value);
  if (/[",\r\n]/.test(s) || s !== s.trim()) return `"${s.replaceAll('"', '""')}"`;
  return s;
}

/**
 * True for a real calendar date written as YYYY-MM-DD (2026-02-30 is false).
 * @param {unknown} s
 * @returns {boolean}
 */
export function isValidDate(s) {
  if (typeof s !== 'string') return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * The WIB calendar date (YYYY-MM-DD) of an ISO 8601 timestamp with an explicit
 * UTC offset, or null if the text is not such a timestamp.
 * @param {string} text
 * @returns {string | null}
 */
export function shopDateOf(text) {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const [, date, hh, mm, ss = '00', , zone, sign, oh, om] = m;
  if (!isValidDate(date)) return null;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
  let offset = 0;
  if (zone !== 'Z') {
    if (Number(oh) > 23 || Number(om) > 59) return null;
    offset = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  }
  const [y, mo, d] = date.split('-').map(Number);
  const utcMs = Date.UTC(y, mo - 1, d, Number(hh), Number(mm) - offset, Number(ss));
  return new Date(utcMs + SHOP_UTC_OFFSET_MINUTES * 60_000).toISOString().slice(0, 10);
}

const MAX_DIGITS = 12; // keeps qty * unit price and every sum a safe integer in practice

/**
 * Validate one raw record (an object keyed by RAW_COLUMNS, values as read)
 * against the partition date. Whitespace around values is ignored. The first
 * failing rule gives the reason.
 * @param {Record<string, string | undefined>} record
 * @param {string} date the partition date, YYYY-MM-DD
 * @returns {{ ok: true, order: Order } | { ok: false, reason: string }}
 */
export function validateRow(record, date) {
  const get = (k) => (record[k] ?? '').trim();
  const orderId = get('order_id');
  const orderedAt = get('ordered_at');
  const customer = get('customer');
  const city = get('city');
  const sku = get('sku');
  const qtyText = get('qty');
  const priceText = get('unit_price_idr');
  const fail = (reason) => ({ ok: false, reason });

  if (orderId === '') return fail('missing order_id');
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(orderId)) return fail(`malformed order_id "${orderId}"`);

  if (orderedAt === '') return fail('missing ordered_at');
  const shopDate = shopDateOf(orderedAt);
  if (shopDate === null) {
    return fail(`ordered_at "${orderedAt}" is not an ISO 8601 timestamp with a UTC offset`);
  }
  if (shopDate !== date) {
    return fail(`ordered_at ${orderedAt} is outside partition ${date} (shop date ${shopDate})`);
  }

  if (customer === '') return fail('missing customer');
  if (city === '') return fail('missing city');
  if (sku === '') return fail('missing sku');

  if (qtyText === '') return fail('missing qty');
  if (/^-\d+$/.test(qtyText)) return fail(`negative qty ${qtyText}`);
  if (!/^\d+$/.test(qtyText)) return fail(`qty "${qtyText}" is not a whole number`);
  if (qtyText.length > MAX_DIGITS) return fail(`qty ${qtyText} is implausibly large`);
  const qty = Number(qtyText);
  if (qty === 0) return fail('qty is 0');

  if (priceText === '') return fail('missing unit_price_idr');
  if (!/^\d+$/.test(priceText)) {
    return fail(`non-numeric unit_price_idr "${priceText}" (expected whole rupiah digits, e.g. 35000)`);
  }
  if (priceText.length > MAX_DIGITS) return fail(`unit_price_idr ${priceText} is implausibly large`);
  const unitPriceIdr = Number(priceText);
  if (unitPriceIdr === 0) return fail('unit_price_idr is 0');

  const amountIdr = qty * unitPriceIdr;
  if (!Number.isSafeInteger(amountIdr)) return fail(`qty * unit_price_idr overflows (${qtyText} * ${priceText})`);

  return { ok: true, order: { orderId, orderedAt, customer, city, sku, qty, unitPriceIdr, amountIdr } };
}

/**
 * Parse and validate a whole raw partition file.
 * - Blank lines are skipped and not counted; a UTF-8 BOM and CRLF line ends are accepted.
 * - A row that fails validation is rejected with a reason.
 * - A valid row whose order_id was already accepted in this file is a duplicate
 *   if it is an exact re-send (same values) and is dropped; if its values differ
 *   it is rejected as a conflicting re-use of the order_id.
 * Throws PartitionError if the header is missing or lacks a required column.
 * @param {string} text
 * @param {string} date
 */
export function processOrders(text, date) {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex === -1) throw new PartitionError('raw partition is empty (no header line)');
  let header;
  try {
    header = parseCsvLine(lines[headerIndex]).map((h) => h.trim());
  } catch (e) {
    throw new PartitionError(`unreadable header: ${e.message}`);
  }
  const missing = RAW_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new PartitionError(`header lacks column(s) ${missing.join(', ')}; expected ${RAW_COLUMNS.join(',')}`);
  }
  const repeated = header.find((h, i) => header.indexOf(h) !== i);
  if (repeated !== undefined) throw new PartitionError(`header repeats column ${repeated}`);

  let rawRows = 0;
  const valid = [];
  const rejected = [];
  const duplicates = [];
  const seen = new Map(); // order_id -> { line, key }

  for (let i = headerIndex + 1; i < lines.length; i += 1) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    rawRows += 1;
    const line = i + 1;
    let fields;
    try {
      fields = parseCsvLine(raw);
    } catch (e) {
      rejected.push({ line, reason: `malformed CSV: ${e.message}`, raw });
      continue;
    }
    if (fields.length !== header.length) {
      rejected.push({ line, reason: `expected ${header.length} fields, got ${fields.length}`, raw });
      continue;
    }
    const record = Object.fromEntries(header.map((h, k) => [h, fields[k]]));
    const result = validateRow(record, date);
    if (!result.ok) {
      rejected.push({ line, reason: result.reason, raw });
      continue;
    }
    const order = result.order;
    const key = JSON.stringify(order);
    const first = seen.get(order.orderId);
    if (first !== undefined) {
      if (first.key === key) {
        duplicates.push({ line, orderId: order.orderId, firstLine: first.line });
      } else {
        rejected.push({
          line,
          reason: `order_id ${order.orderId} already used on line ${first.line} with different values`,
          raw,
        });
      }
      continue;
    }
    seen.set(order.orderId, { line, key });
    valid.push(order);
  }
  return { rawRows, valid, rejected, duplicates };
}

const byCodeUnits = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Revenue per city, sorted by city (plain code-unit order, independent of locale).
 * @param {Order[]} orders valid orders
 * @param {string} date
 */
export function summarise(orders, date) {
  const byCity = new Map();
  for (const o of orders) {
    const s = byCity.get(o.city) ?? { date, city: o.city, orders: 0, items: 0, revenueIdr: 0 };
    s.orders += 1;
    s.items += o.qty;
    s.revenueIdr += o.amountIdr;
    if (!Number.isSafeInteger(s.revenueIdr)) throw new RangeError(`revenue for ${o.city} overflows`);
    byCity.set(o.city, s);
  }
  return [...byCity.values()].sort((a, b) => byCodeUnits(a.city, b.city));
}

/** Total revenue of summary rows, integer rupiah. */
export function totalRevenue(rows) {
  return rows.reduce((sum, r) => sum + r.revenueIdr, 0);
}

/**
 * The gold CSV bytes: header + one line per city, LF line ends, trailing newline.
 * Deterministic: same input, same bytes (no timestamps).
 */
export function toGoldCsv(rows) {
  const out = [GOLD_COLUMNS.join(',')];
  for (const r of rows) {
    out.push([r.date, r.city, r.orders, r.items, r.revenueIdr].map(csvField).join(','));
  }
  return out.join('\n') + '\n';
}

/** The rejects CSV bytes: date, physical line number in the raw file, reason, the raw line. */
export function toRejectsCsv(rejected, date) {
  const out = [REJECT_COLUMNS.join(',')];
  for (const r of rejected) out.push([date, r.line, r.reason, r.raw].map(csvField).join(','));
  return out.join('\n') + '\n';
}

/**
 * Rupiah with comma thousands separators and no decimals: 843000 -> "Rp843,000".
 * Locale-independent. Throws on anything but a safe integer.
 * @param {number} amount
 */
export function formatRupiah(amount) {
  if (!Number.isSafeInteger(amount)) throw new TypeError(`not a whole rupiah amount: ${amount}`);
  const digits = String(Math.abs(amount)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${amount < 0 ? '-' : ''}Rp${digits}`;
}

/** File names of one date's partition, gold and rejects files. */
export const rawFileName = (date) => `orders-${date}.csv`;
export const goldFileName = (date) => `revenue-by-city-${date}.csv`;
export const rejectsFileName = (date) => `rejects-${date}.csv`;

/**
 * Everything the ETL computes for one partition's text, without touching disk.
 * @param {string} text
 * @param {string} date
 */
export function runPartition(text, date) {
  const { rawRows, valid, rejected, duplicates } = processOrders(text, date);
  const rows = summarise(valid, date);
  const stats = {
    rawRows,
    valid: valid.length,
    rejected: rejected.length,
    duplicates: duplicates.length,
    cities: rows.length,
    revenueIdr: totalRevenue(rows),
  };
  return {
    stats,
    rows,
    rejected,
    duplicates,
    goldCsv: toGoldCsv(rows),
    rejectsCsv: toRejectsCsv(rejected, date),
  };
}

/**
 * "2026-11-02: 7 raw → 4 valid, 2 rejected, 1 duplicate; 3 cities; revenue Rp843,000"
 */
export function summaryLine(date, stats) {
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  return (
    `${date}: ${stats.rawRows} raw → ${stats.valid} valid, ${stats.rejected} rejected, ` +
    `${plural(stats.duplicates, 'duplicate', 'duplicates')}; ${plural(stats.cities, 'city', 'cities')}; ` +
    `revenue ${formatRupiah(stats.revenueIdr)}`
  );
}

/**
 * @typedef {object} Order
 * @property {string} orderId
 * @property {string} orderedAt
 * @property {string} customer
 * @property {string} city
 * @property {string} sku
 * @property {number} qty
 * @property {number} unitPriceIdr
 * @property {number} amountIdr
 */
