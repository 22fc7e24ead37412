/**
 * What a file keeps of a listing — what a read tool listed at one moment: the effects view's snapshots
 * (`src/domain/effects/snapshot.ts`, in a report's `effects`) and `probe --count-with`'s answers (a probe
 * row's `evidence.listings`). Never the whole listing, which can be millions of lines and would outgrow
 * the readers' 64 MiB input limit: how many items, a hash of all of them in order (two listings are the
 * same exactly when their hashes are, for this purpose) and the first few, each cut. Pure.
 */
import { hashJoined } from '../json.js';

/** Items kept at the head of a bounded listing. */
export const LISTING_HEAD = 5;
/** Characters of one item kept at the head. */
export const LISTING_HEAD_CHARS = 200;

export interface BoundedListing {
  /** How many items were listed. */
  count: number;
  /** Hash of the items' texts joined by line feeds, in listing order. */
  hash: string;
  /** The first {@link LISTING_HEAD} items, each cut to {@link LISTING_HEAD_CHARS} characters (`…` when cut). */
  head: string[];
}

/** The bounded form of a listing given as its items' texts, in order. */
export function boundedListing(items: readonly string[]): BoundedListing {
  return {
    count: items.length,
    hash: hashJoined(items),
    head: items
      .slice(0, LISTING_HEAD)
      .map((text) => (text.length > LISTING_HEAD_CHARS ? `${text.slice(0, LISTING_HEAD_CHARS)}…` : text)),
  };
}
