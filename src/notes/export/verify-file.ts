import { readChainJson } from '../chain/chain-json.ts';
import { type Verification, verifyChains } from '../chain/verify-chain.ts';
import { chainsOfFhir } from './fhir/fhir-read.ts';

// `record verify FILE`: a record export read with nothing else — no database, no configuration —
// and every link of every note's hash chain recomputed (docs/notes-record.md, "Verifying a record").

/** The export's text verified: a JSON export (`format: vetflow.record`) or a FHIR Bundle. */
export function verifyRecordText(text: string): Verification {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error('the file is not JSON: expected a JSON or FHIR export of a record');
  }
  const isFhir = typeof document === 'object' && document !== null && 'resourceType' in document;
  return verifyChains(isFhir ? chainsOfFhir(document as Record<string, unknown>) : readChainJson(document));
}
