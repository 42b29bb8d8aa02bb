// The fake gateways' paging: the page after the row a cursor names, as the real gateways' keyset
// does (their real query, with ties and microseconds, is tested in gallery-keyset.test.ts). A
// cursor that names no row, or names it with another created_at than the row has (one rounded
// through Date, say), fails the page, so a page test notices a wrong cursor.
import type { PageCursor } from '../../src/features/shared/keyset.ts';

/** Up to `size` rows of `rows` (in the fixture's order, newest first) after the row `after`; the first page for null. */
export function pageAfter<T extends PageCursor>(rows: readonly T[], after: PageCursor | null, size: number): T[] {
  let start = 0;
  if (after) {
    const at = rows.findIndex((r) => r.id === after.id);
    if (at < 0 || rows[at]!.created_at !== after.created_at) throw new Error(`the cursor ${JSON.stringify(after)} names no row of the list`);
    start = at + 1;
  }
  return rows.slice(start, start + size);
}

/** The cursor after `row`: its created_at and id, nothing else. */
export const cursorOf = (row: PageCursor): PageCursor => ({ created_at: row.created_at, id: row.id });
