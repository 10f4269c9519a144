// How every error body names what is wrong with an input: the field (a dotted path) and a reason.
// The request validator, the CRM bodies, the upload's metadata part and the configuration all
// describe a zod issue this one way.

/** The parts of a zod issue (or of fastify-type-provider-zod's rendering of one) that name it. */
export interface IssueLike {
  path: readonly PropertyKey[];
  message?: string | undefined;
  code?: string | undefined;
  /** The unknown keys of an `unrecognized_keys` issue. */
  keys?: readonly string[] | undefined;
}

export interface FieldIssue {
  field: string;
  reason: string;
}

/**
 * The field and reason of one issue. An unknown key is named by the key itself ("unknown field"),
 * not by the object that holds it; `fallback` names the whole input when the path is empty.
 */
export function fieldIssueOf(issue: IssueLike | undefined, fallback: string): FieldIssue {
  if (!issue) return { field: fallback, reason: 'invalid value' };
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys?.[0] : undefined;
  const path = [...issue.path, ...(unknownKey === undefined ? [] : [unknownKey])].map(String);
  return {
    field: path.join('.') || fallback,
    reason: unknownKey === undefined ? (issue.message ?? 'invalid value') : 'unknown field',
  };
}
