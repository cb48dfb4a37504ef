import { IronclawError } from "../core/index.js";

/**
 * The egress policy said no: a scheme that is not fetched, a host off the lists, a private, denied or own
 * address. The warden answers the cell's fetch with a `forbidden` Error carrying this message; any other failure
 * of a fetch (a timeout, a reset) is `internal`.
 */
export class EgressRefusal extends IronclawError {
  override readonly name = "EgressRefusal";
  constructor(message: string, options?: { cause?: unknown }) {
    super("egress_refused", message, options);
  }
}
