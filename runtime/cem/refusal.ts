/** A certificate exchange pier will not make, with the problem per field, as the API reports it. */
export class CemRefusal extends Error {
  constructor(
    readonly problems: Record<string, string>,
    /** 404 rather than 400: the exchange, partner or certificate named does not exist. */
    readonly missing: string | null = null,
  ) {
    super(Object.values(problems).join('; '));
  }
}
