// Keyset (cursor) paging for the galleries (issue 12). The galleries list newest first, by
// (created_at desc, id desc); a further page is the rows after the last one shown, asked as
// `created_at <= last.created_at and (created_at < last.created_at or id < last.id)`, which the
// (email, created_at desc, id desc) index answers flat at any depth (an offset reads and drops every row
// before the page). The id breaks ties, so rows made in the same microsecond are neither lost
// nor shown twice.

import type { PageCursor } from '@aim/shared-kit/query';

/** Where a page ends (the paging itself is shared-kit's useKeysetList). */
export type { PageCursor };

/** A value inside a PostgREST logic tree, double-quoted: a timestamp holds `.`, `:` and `+`, reserved there. */
function treeValue(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

/** The `or=(…)` half of "after `last`" (the other half is `created_at <= last.created_at`). */
export function olderThan(last: PageCursor): string {
  return `created_at.lt.${treeValue(last.created_at)},id.lt.${treeValue(last.id)}`;
}
