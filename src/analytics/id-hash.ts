/**
 * A 52-bit hash of an event id, the part of the dedup key that stands for
 * the id in event_dedup: an integer of 8 bytes instead of the id's text
 * (often a 36-character UUID), so the index is a fraction of the size. Two
 * ids may share a hash: a match is then checked against the events row, so
 * deduplication stays exact. 52 bits stay exact in a JavaScript number and
 * in SQLite's INTEGER; collisions need the same project and client time too.
 *
 * FNV-1a and a multiply-rotate (the pair of key-filter.ts) over the UTF-16
 * code units: all 32 bits of the first, the top 20 of the second.
 */
export function idHash(id: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return (h1 >>> 0) * 0x100000 + (h2 >>> 12);
}

/** The name idHash is registered under on the writer's connection, for the checkpoint's INSERT … SELECT. */
export const ID_HASH_SQL = 'event_id_hash';
