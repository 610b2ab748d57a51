// The OpenLineage JSON Schema (../shared/openlineage/spec next to the checkout, or RUNLEDGER_OPENLINEAGE_DIR) loaded in ajv,
// for tests that check events against the spec itself. Tests skip that part, with a message, when the folder is absent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const ROOT = resolve(import.meta.dirname, '../..');

/** The spec folder, or undefined when it is not next to this checkout. */
export const OPENLINEAGE_SPEC_DIR = [process.env['RUNLEDGER_OPENLINEAGE_DIR'], join(ROOT, '../shared/openlineage'), join(ROOT, '../../shared/openlineage')]
  .filter((d): d is string => d !== undefined && d !== '')
  .map((d) => join(d, 'spec'))
  .find((d) => existsSync(join(d, 'OpenLineage.json')));

type Spec = { errors: (event: unknown) => string[]; facetIds: string[] };
// Loaded on first use: a skipped describe still runs its body to collect the tests, and must not read files that are not there.
let loaded: Spec | undefined;

/**
 * The spec's complaints about one event: against OpenLineage.json, its run facets against each RunFacet file,
 * its job facets against each JobFacet file (an empty list: valid).
 */
export function openLineageSpecErrors(event: unknown): string[] {
  loaded ??= load(OPENLINEAGE_SPEC_DIR as string);
  return loaded.errors(event);
}

/** The `$id` of every facet file the spec holds. */
export function openLineageSpecFacetIds(): string[] {
  loaded ??= load(OPENLINEAGE_SPEC_DIR as string);
  return loaded.facetIds;
}

function load(dir: string): Spec {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: false });
  ajv.addVocabulary(['example']);
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { $id: string };
  const core = read(join(dir, 'OpenLineage.json'));
  ajv.addSchema(core);
  const facets = existsSync(join(dir, 'facets')) ? readdirSync(join(dir, 'facets')).map((f) => read(join(dir, 'facets', f))) : [];
  for (const facet of facets) ajv.addSchema(facet);
  const validateEvent = ajv.getSchema(core.$id);
  const runFacetIds = facets.map((f) => f.$id).filter((id) => !id.includes('JobFacet'));
  const jobFacetIds = facets.map((f) => f.$id).filter((id) => id.includes('JobFacet'));
  const errors = (event: unknown): string[] => {
    const errors: string[] = [];
    if (!validateEvent?.(event)) errors.push(...(validateEvent?.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
    const e = event as { run?: { facets?: unknown }; job?: { facets?: unknown } };
    for (const [ids, value] of [[runFacetIds, e.run?.facets ?? {}], [jobFacetIds, e.job?.facets ?? {}]] as const) {
      for (const id of ids) {
        const validate = ajv.getSchema(id);
        if (!validate?.(value)) errors.push(...(validate?.errors ?? []).map((x) => `${x.instancePath} ${x.message}`));
      }
    }
    return errors;
  };
  return { errors, facetIds: facets.map((f) => f.$id) };
}
