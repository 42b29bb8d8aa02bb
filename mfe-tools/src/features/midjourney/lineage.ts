// A task's family (issue 15 §3): the imagine it started from and every task made from it
// (upscales, variations, rerolls, pan, zoom, vary, inpaint), as a tree. The rows come from the
// gateway (supabase-js under RLS: the user's own rows only); this file is free of React so its
// rules are table-tested (test/lineage.test.ts).
import { taskPhase } from '../tasks/task-rules.ts';
import { resultLayout } from './task-model.ts';

/** The columns of a task row the family needs. */
export const LINEAGE_COLUMNS = 'id,type,status,parent_id,image_url,image_urls,created_at';

export type LineageRow = {
  id: string;
  type: string;
  status: string;
  parent_id: string | null;
  image_url: string | null;
  image_urls: string[] | null;
  created_at: string;
  /** Read from tasks_archive_1. */
  archived: boolean;
};

export type LineageNode = { row: LineageRow; children: LineageNode[] };

/** How far the family is read: ancestors walked up, levels of descendants, and tasks in all. */
export const LINEAGE_LIMITS = { ancestors: 10, levels: 8, tasks: 60 } as const;

/**
 * The family tree of `currentId` from `rows`: rooted at its oldest ancestor present, children
 * oldest first. Tasks without pictures (a seed) are left out unless they are the current one.
 * Null when the current task is not among the rows.
 */
export function buildLineage(rows: readonly LineageRow[], currentId: string): LineageNode | null {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const current = byId.get(currentId);
  if (!current) return null;
  let root = current;
  const seen = new Set([root.id]);
  for (let parent = root.parent_id ? byId.get(root.parent_id) : undefined; parent && !seen.has(parent.id); ) {
    seen.add(parent.id);
    root = parent;
    parent = root.parent_id ? byId.get(root.parent_id) : undefined;
  }
  const shown = (row: LineageRow) => row.id === currentId || hasPictures(row.type);
  const childrenOf = new Map<string, LineageRow[]>();
  for (const row of rows) {
    if (!row.parent_id || row.id === root.id || !shown(row)) continue;
    childrenOf.set(row.parent_id, [...(childrenOf.get(row.parent_id) ?? []), row]);
  }
  const placed = new Set<string>();
  const grow = (row: LineageRow): LineageNode => {
    placed.add(row.id);
    const children = (childrenOf.get(row.id) ?? [])
      .filter((child) => !placed.has(child.id))
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return { row, children: children.map(grow) };
  };
  return grow(root);
}

/** Whether a task of this type makes pictures (a node worth showing): not a seed, describe or shorten. */
function hasPictures(type: string): boolean {
  const layout = resultLayout(type);
  return layout === 'grid' || layout === 'single';
}

/** How many tasks a tree holds. */
export function lineageSize(node: LineageNode): number {
  return 1 + node.children.reduce((n, child) => n + lineageSize(child), 0);
}

const ACTION_LABELS: Record<string, string> = {
  imagine: 'Imagine',
  reroll: 'Reroll',
  blend: 'Blend',
  inpaint: 'Vary (Region)',
  'variation-strong': 'Vary (Strong)',
  'variation-subtle': 'Vary (Subtle)',
  'upscale-subtle': 'Upscale (Subtle)',
  'upscale-creative': 'Upscale (Creative)',
  'upscale-2x': 'Upscale 2x',
  'upscale-4x': 'Upscale 4x',
  'outpaint-custom': 'Custom Zoom',
  describe: 'Describe',
  shorten: 'Shorten',
  seed: 'Seed',
};

/** The action that made a task, as the tool's buttons name it: 'upscale#2' → 'Upscale 2', 'pan-left' → 'Pan left'. */
export function actionLabel(type: string): string {
  const known = ACTION_LABELS[type];
  if (known) return known;
  let match = /^upscale#([1-4])$/.exec(type);
  if (match) return `Upscale ${match[1]}`;
  match = /^variation-([1-4])$/.exec(type);
  if (match) return `Variation ${match[1]}`;
  match = /^pan-(\w+)$/.exec(type);
  if (match) return `Pan ${match[1]}`;
  match = /^outpaint-([\d.]+x)$/.exec(type);
  if (match) return `Zoom Out ${match[1]}`;
  return type;
}

/** The small picture of a finished task: a grid's composed picture (else its first cell), an upscale's image. */
export function lineageThumbnail(row: Pick<LineageRow, 'status' | 'image_url' | 'image_urls'>): string | null {
  if (taskPhase(row.status) !== 'done') return null;
  return row.image_url ?? row.image_urls?.find((url) => !!url) ?? null;
}

/** What a node says about its task besides its action: nothing when finished, else its state. */
export function lineageState(row: Pick<LineageRow, 'status' | 'archived'>): string | null {
  const phase = taskPhase(row.status);
  if (phase === 'failed') return 'failed';
  if (phase === 'active') return row.status === 'pending' || row.status === 'queued' || row.status === 'staged' ? 'pending' : 'running';
  return row.archived ? 'archived' : null;
}
