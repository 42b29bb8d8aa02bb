// Reads a task's family through the page's supabase-js client: REST under row-level security,
// so only the user's own rows ever come back (another account's child of a task is invisible).
// Up the parent_id chain one row at a time, then down from the oldest ancestor one level at a
// time (`parent_id=in.(…)`, indexed in tasks and tasks_archive_1), live and archived rows alike.
import { withNormalizedStatus } from '@aim/shared-kit/domain';
import type { getSupabaseClient } from '@aim/shared-kit/supabase';
import { LINEAGE_COLUMNS, LINEAGE_LIMITS, type LineageRow } from './lineage.ts';

type SupabaseClient = ReturnType<typeof getSupabaseClient>;

const TABLES = [
  ['tasks', false],
  ['tasks_archive_1', true],
] as const;

/** The family rows of `taskId` (the gateway's readLineage); throws when a read fails. */
export function createLineageReader(supabase: SupabaseClient) {
  /** The rows of both tables whose `column` is one of `values`; a row found live wins over its archived copy. */
  async function rowsWhere(column: 'id' | 'parent_id', values: string[], limit: number): Promise<LineageRow[]> {
    const answers = await Promise.all(
      TABLES.map(async ([table, archived]) => {
        const { data, error } = await supabase.from(table).select(LINEAGE_COLUMNS).in(column, values).order('created_at').limit(limit);
        if (error) throw new Error(error.message);
        return (data as unknown as Omit<LineageRow, 'archived'>[]).map((row) => ({ ...withNormalizedStatus(row), archived }));
      }),
    );
    const byId = new Map<string, LineageRow>();
    for (const row of answers.flat()) if (!byId.has(row.id)) byId.set(row.id, row);
    return [...byId.values()];
  }

  return async function readLineage(taskId: string): Promise<LineageRow[]> {
    const family = new Map<string, LineageRow>();
    // up: the task, its parent, … the first task of the family
    let root: LineageRow | undefined;
    for (let id: string | null = taskId, step = 0; id && step <= LINEAGE_LIMITS.ancestors && !family.has(id); step++) {
      const [row] = await rowsWhere('id', [id], 1);
      if (!row) break;
      family.set(row.id, row);
      root = row;
      id = row.parent_id;
    }
    if (!root) return [];
    // down: every level of tasks made from the root, until none or the limits (the ancestors
    // read on the way up are in the family already, but their other children are not)
    const expanded = new Set<string>();
    let level = [root.id];
    for (let depth = 0; depth < LINEAGE_LIMITS.levels && level.length > 0; depth++) {
      for (const id of level) expanded.add(id);
      const children = await rowsWhere('parent_id', level, LINEAGE_LIMITS.tasks);
      level = [];
      for (const child of children) {
        if (expanded.has(child.id)) continue;
        if (!family.has(child.id)) {
          if (family.size >= LINEAGE_LIMITS.tasks) continue;
          family.set(child.id, child);
        }
        level.push(child.id);
      }
    }
    return [...family.values()];
  };
}
