/**
 * The bookings of the example hotel, in memory (and, with `BOOKING_STORE`, in a file: `store-file.ts`). Deliberately NOT idempotent: `create` makes a new booking on
 * every call, even for identical input and the same idempotency key, so every duplicate write an agent
 * sends becomes a real duplicate booking (see README.md).
 */

/** What `create_booking` needs; optional fields already defaulted by the caller where it wants. */
export interface BookingInput {
  guest: string;
  date: string;
  room?: string;
  nights?: number;
  amount?: number;
  idempotencyKey?: string;
}

/** One stored booking, as answered to the agent (JSON). */
export interface Booking {
  id: string;
  guest: string;
  date: string;
  room: string;
  nights: number;
  amount?: number;
  /** The key the agent sent, kept only to show it was ignored for deduplication. */
  idempotencyKey?: string;
  status: 'confirmed' | 'cancelled';
}

/** Why a cancellation did not happen. */
export type CancelRefusal = 'not-found' | 'already-cancelled';

/** A search filter; an empty filter matches every booking. */
export interface BookingQuery {
  guest?: string;
  date?: string;
}

/** The booking book: ids `BK-0001`, `BK-0002`, … in creation order. */
export class BookingStore {
  private readonly bookings = new Map<string, Booking>();
  private nextNumber = 1;

  /**
   * @param initial bookings stored before (env `BOOKING_STORE`): new ids continue after the highest
   * @param changed called with every booking after each create and cancel (to write the store file)
   */
  constructor(
    initial: readonly Booking[] = [],
    private readonly changed?: (bookings: Booking[]) => void,
  ) {
    for (const booking of initial) {
      this.bookings.set(booking.id, { ...booking });
      this.nextNumber = Math.max(this.nextNumber, Number(booking.id.slice('BK-'.length)) + 1);
    }
  }

  /** Every booking, in creation order (copies). */
  all(): Booking[] {
    return [...this.bookings.values()].map((b) => ({ ...b }));
  }

  /** Creates a new booking every time it is called (no deduplication, on purpose). */
  create(input: BookingInput): Booking {
    const id = `BK-${String(this.nextNumber++).padStart(4, '0')}`;
    const booking: Booking = {
      id,
      guest: input.guest,
      date: input.date,
      room: input.room ?? 'standard',
      nights: input.nights ?? 1,
      ...(input.amount === undefined ? {} : { amount: input.amount }),
      ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
      status: 'confirmed',
    };
    this.bookings.set(id, booking);
    this.changed?.(this.all());
    return { ...booking };
  }

  /** Bookings whose guest matches case-insensitively and/or whose date is equal, in creation order. */
  search(query: BookingQuery): Booking[] {
    const guest = query.guest?.trim().toLowerCase();
    return [...this.bookings.values()]
      .filter((b) => guest === undefined || b.guest.trim().toLowerCase() === guest)
      .filter((b) => query.date === undefined || b.date === query.date)
      .map((b) => ({ ...b }));
  }

  /** The first booking stored with this idempotency key, or undefined. */
  findByKey(key: string): Booking | undefined {
    for (const booking of this.bookings.values()) if (booking.idempotencyKey === key) return { ...booking };
    return undefined;
  }

  /** The booking with this id, or undefined. */
  get(id: string): Booking | undefined {
    const booking = this.bookings.get(id);
    return booking === undefined ? undefined : { ...booking };
  }

  /** Cancels a confirmed booking; answers the refusal reason when there is nothing to cancel. */
  cancel(id: string): Booking | CancelRefusal {
    const booking = this.bookings.get(id);
    if (booking === undefined) return 'not-found';
    if (booking.status === 'cancelled') return 'already-cancelled';
    booking.status = 'cancelled';
    this.changed?.(this.all());
    return { ...booking };
  }
}
