// Page-numbered lists in both APIs: `?page=` (from 1) and `?limit=`, answered with
// `meta: {total, page, limit, total_pages}`.

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/** Page/limit query → SQL limit/offset (defaults: page 1, `defaultLimit` rows). */
export function pageOf(query: { page?: number; limit?: number }, defaultLimit = 20): Page {
  const limit = query.limit ?? defaultLimit;
  const page = query.page ?? 1;
  return { page, limit, offset: (page - 1) * limit };
}

/** The `meta` of a page of `total` matching rows. */
export function metaOf(page: { page: number; limit: number }, total: number) {
  return { total, page: page.page, limit: page.limit, total_pages: Math.ceil(total / page.limit) };
}
