/**
 * @module Songs inside tasks (result.songs[i].id, the id /suno-extend names a song by). The
 * only SQL about songs; every read is scoped by the caller's user id.
 */
import type { Queryable } from '@aim/supabase/db';

export function songRepository(q: Queryable) {
  return {
    /** The id of this user's task (live or archived) that holds a song with this id, or undefined. */
    async findOwnTaskIdBySongId(userId: string, songId: string): Promise<string | undefined> {
      const song = JSON.stringify([{ id: songId }]);
      const { rows } = await q.query<{ id: string }>(
        `select id from public.tasks where user_id = $1 and result->'songs' @> $2::jsonb
         union all
         select id from public.tasks_archive_1 where user_id = $1 and result->'songs' @> $2::jsonb
         limit 1`,
        [userId, song],
      );
      return rows[0]?.id;
    },
  };
}
