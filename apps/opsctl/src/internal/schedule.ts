// How a fleet command shares its --concurrency slots. A slot is a target being worked on; a
// target whose first request has not answered after a short wait gives its slot up and waits
// for that answer on its own ("parked"), at most MAX_PARKED of them at once, then takes a slot
// again to go on. Black-holed nodes thus hold a slot for PARK_AFTER_MS each, not a --timeout,
// and healthy nodes sorted after a thousand of them are still reached within seconds; at most
// --concurrency targets are ever past their first answer at once (for `logspec set`: changed
// at once), and nothing of a parked target is lost: its request goes on with its full
// --timeout, and its answer is used.
import type { OpsClient } from '../client.ts';

/** How long a target's first request holds its slot before it waits without one (or --timeout, if shorter). */
export const PARK_AFTER_MS: number = 100;
/**
 * Targets waiting for a first answer without a slot, at most: each holds one socket (a TLS
 * client connection, some tens of KiB). A target with no room keeps its slot until room frees
 * or it is answered.
 */
export const MAX_PARKED: number = 1_024;

/** Counting semaphore; targets that resume are served before targets not yet started. `close()` lets everyone through. */
export class Slots {
  private free: number;
  private closed = false;
  private readonly resuming: (() => void)[] = [];
  private readonly starting: (() => void)[] = [];

  constructor(count: number) {
    this.free = count;
  }

  acquire(resume: boolean): Promise<void> {
    if (this.closed || this.free > 0) {
      if (!this.closed) this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => (resume ? this.resuming : this.starting).push(resolve));
  }

  release(): void {
    if (this.closed) return;
    const next = this.resuming.shift() ?? this.starting.shift();
    if (next !== undefined) next();
    else this.free++;
  }

  /** After the deadline: every waiter and every later caller goes through at once (their requests are being aborted). */
  close(): void {
    this.closed = true;
    for (const next of [...this.resuming.splice(0), ...this.starting.splice(0)]) next();
  }
}

/** Room for parked targets, handed out in order of asking. */
export class ParkingRoom {
  private room: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.room = size;
  }

  /** A ticket: `granted` resolves once there is room; `cancel()` gives the place (or the room) back. */
  enter(): { readonly granted: Promise<void>; cancel(): void } {
    let granted = false;
    let wake: (() => void) | undefined;
    const promise = new Promise<void>((resolve) => {
      wake = () => {
        granted = true;
        resolve();
      };
    });
    if (this.room > 0) {
      this.room--;
      wake!();
    } else this.waiting.push(wake!);
    return {
      granted: promise,
      cancel: () => {
        if (granted) this.leave();
        else this.waiting.splice(this.waiting.indexOf(wake!), 1);
      },
    };
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.room++;
  }
}

/** Whether the target currently holds a slot; the parking client gives it up and takes it back. */
export interface SlotHolder {
  holding: boolean;
}

/**
 * `client`, whose first request gives up the target's slot after `parkAfterMs` without an
 * answer (once there is parking room) and takes a slot again before its answer is returned.
 */
export function parkingClient(client: OpsClient, parkAfterMs: number, slots: Slots, parking: ParkingRoom, holder: SlotHolder): OpsClient {
  let first = true;
  return {
    origin: client.origin,
    async request(method, path, body) {
      if (!first) return client.request(method, path, body);
      first = false;
      const answer = client.request(method, path, body);
      const settled = answer.then(
        () => 'answered' as const,
        () => 'answered' as const,
      );
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), parkAfterMs)));
      const early = await Promise.race([settled, waited]);
      clearTimeout(timer);
      if (early === 'answered') return answer;
      const ticket = parking.enter();
      const parked = await Promise.race([settled, ticket.granted.then(() => 'parked' as const)]);
      if (parked === 'answered') {
        ticket.cancel();
        return answer;
      }
      holder.holding = false;
      slots.release();
      try {
        return await answer;
      } finally {
        parking.leave();
        await slots.acquire(true);
        holder.holding = true;
      }
    },
  };
}
