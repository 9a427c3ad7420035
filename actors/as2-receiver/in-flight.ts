/**
 * What one partner and one client address have in progress at a receiver: requests and bytes
 * of body. A request that would take either over its limit is refused (503 with Retry-After,
 * server.ts) before its body is read, so no sender, known or not, can tie up the receiver's
 * connections, disk or memory beyond its share. A body without Content-Length is counted as it
 * arrives and refused when it crosses a limit.
 */

export interface InFlightLimits {
  requestsPerPartner: number;
  bytesPerPartner: number;
  requestsPerAddress: number;
  bytesPerAddress: number;
}

interface Load {
  requests: number;
  bytes: number;
}

/** Which limit a request would cross: the words of the 503. */
export type Crossed = 'partner requests' | 'partner bytes' | 'address requests' | 'address bytes';

export class InFlight {
  readonly #partners = new Map<string, Load>();
  readonly #addresses = new Map<string, Load>();

  constructor(private readonly limits: InFlightLimits) {}

  /**
   * Takes one request of `bytes` (its Content-Length, 0 when unknown) for the address and,
   * when known, the partner; or says which limit it would cross and takes nothing.
   */
  enter(address: string, partner: string | null, bytes: number): Entry | Crossed {
    const byAddress = this.#addresses.get(address) ?? { requests: 0, bytes: 0 };
    const byPartner = partner === null ? null : (this.#partners.get(partner) ?? { requests: 0, bytes: 0 });
    if (byPartner && byPartner.requests + 1 > this.limits.requestsPerPartner) return 'partner requests';
    if (byPartner && byPartner.bytes + bytes > this.limits.bytesPerPartner) return 'partner bytes';
    if (byAddress.requests + 1 > this.limits.requestsPerAddress) return 'address requests';
    if (byAddress.bytes + bytes > this.limits.bytesPerAddress) return 'address bytes';
    byAddress.requests++;
    byAddress.bytes += bytes;
    this.#addresses.set(address, byAddress);
    if (byPartner && partner !== null) {
      byPartner.requests++;
      byPartner.bytes += bytes;
      this.#partners.set(partner, byPartner);
    }
    return new Entry(this, byAddress, byPartner, bytes, () => {
      if (byAddress.requests === 0) this.#addresses.delete(address);
      if (byPartner && byPartner.requests === 0 && partner !== null) this.#partners.delete(partner);
    });
  }

  /** For Entry.grow: whether `more` bytes fit both loads. */
  fits(byAddress: Load, byPartner: Load | null, more: number): Crossed | null {
    if (byPartner && byPartner.bytes + more > this.limits.bytesPerPartner) return 'partner bytes';
    if (byAddress.bytes + more > this.limits.bytesPerAddress) return 'address bytes';
    return null;
  }
}

/** One request's share; `leave` gives it back once the request is answered and done. */
export class Entry {
  #left = false;

  constructor(
    private readonly owner: InFlight,
    private readonly byAddress: Load,
    private readonly byPartner: Load | null,
    private bytes: number,
    private readonly forget: () => void,
  ) {}

  /** Counts `more` bytes of a body whose length was not declared; the limit it crosses, or null. */
  grow(more: number): Crossed | null {
    const crossed = this.owner.fits(this.byAddress, this.byPartner, more);
    if (crossed) return crossed;
    this.bytes += more;
    this.byAddress.bytes += more;
    if (this.byPartner) this.byPartner.bytes += more;
    return null;
  }

  leave(): void {
    if (this.#left) return;
    this.#left = true;
    this.byAddress.requests--;
    this.byAddress.bytes -= this.bytes;
    if (this.byPartner) {
      this.byPartner.requests--;
      this.byPartner.bytes -= this.bytes;
    }
    this.forget();
  }
}
