// The OpenLineage JSON Schema loaded in ajv, for tests that check events against the spec itself: the copy vendored
// in tests/fixtures/openlineage/vendor (with its license), or RUNLEDGER_OPENLINEAGE_DIR to check against another version.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const ROOT = resolve(import.meta.dirname, '../..');

/** The spec folder: RUNLEDGER_OPENLINEAGE_DIR's when set, else the vendored copy every checkout has. */
export const OPENLINEAGE_SPEC_DIR = join(process.env['RUNLEDGER_OPENLINEAGE_DIR'] || join(ROOT, 'tests/fixtures/openlineage/vendor'), 'spec');
if (!existsSync(join(OPENLINEAGE_SPEC_DIR, 'OpenLineage.json'))) throw new Error(`no OpenLineage.json in ${OPENLINEAGE_SPEC_DIR}; RUNLEDGER_OPENLINEAGE_DIR must name a folder holding spec/OpenLineage.json`);

type Spec = { errors: (event: unknown) => string[]; facetIds: string[] };
// Loaded on first use: only the tests that check against the spec pay for compiling it.
let loaded: Spec | undefined;

/**
 * The spec's complaints about one event: against OpenLineage.json, its run facets against each RunFacet file,
 * its job facets against each JobFacet file (an empty list: valid).
 */
export function openLineageSpecErrors(event: unknown): string[] {
  loaded ??= load(OPENLINEAGE_SPEC_DIR);
  return loaded.errors(event);
}

/** The `$id` of every facet file the spec holds. */
export function openLineageSpecFacetIds(): string[] {
  loaded ??= load(OPENLINEAGE_SPEC_DIR);
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
