import { READ_MODEL_TABLES, type ColumnType, type TableDeclaration } from '../read-model-schema.js';
import { quoteIdent } from './postgres-schema.js';

/** PostgreSQL's type for each logical type (what `information_schema.columns.data_type` reports). */
const POSTGRES_TYPES: Record<ColumnType, string> = { text: 'text', int: 'integer', bigint: 'bigint' };

/**
 * The DDL of the read-model tables in `schema`, from their declaration (read-model-schema.ts): the same tables
 * and indexes as SQLite's. PostgreSQL's heap has no key order, so `keyOrdered` asks nothing of it.
 *
 * @example
 * await client.query(postgresReadModelSql('public'));
 */
export function postgresReadModelSql(schema: string, tables: readonly TableDeclaration[] = READ_MODEL_TABLES): string {
  const s = quoteIdent(schema);
  return tables
    .map((table) => {
      const columns = table.columns.map((c) => `  ${quoteIdent(c.name)} ${POSTGRES_TYPES[c.type]}${c.nullable ? '' : ' NOT NULL'}`);
      const create = `CREATE TABLE ${s}.${table.name} (\n${[...columns, `  PRIMARY KEY (${table.primaryKey.map(quoteIdent).join(', ')})`].join(',\n')}\n);`;
      const indexes = table.indexes.map((index) => `CREATE INDEX ${index.name} ON ${s}.${table.name} (${index.columns.map(quoteIdent).join(', ')});`);
      return [create, ...indexes].join('\n');
    })
    .join('\n');
}

/** A table's primary key as a conflict target (`ON CONFLICT (…)`). */
export function conflictTarget(table: TableDeclaration): string {
  return table.primaryKey.map(quoteIdent).join(', ');
}
