import type { ProtocolMessage } from "../contracts/cell/index.js";

/**
 * Whose messages one end of the channel takes. `any`: the warden's side, which knows whose cell it talks to.
 * `enforce`: the inmate's side, which refuses messages addressed to another user. `await-hello`: a blank cell
 * from the pool, started before anyone knew its user: the warden's first Hello names the user, who is then
 * enforced for good; until then it takes no work, only Heartbeats, Cancel and Shutdown.
 */
export type IdentityMode = "any" | "enforce" | "await-hello";

const BEFORE_HELLO = new Set(["Hello", "Heartbeat", "Cancel", "Shutdown", "Error"]);

export class PeerIdentity {
  constructor(
    private current: string,
    private mode: IdentityMode,
  ) {}

  get userId(): string {
    return this.current;
  }

  /** True until a blank cell's first Hello. */
  get awaitingUser(): boolean {
    return this.mode === "await-hello";
  }

  /** The user this side now speaks for (the warden's side, when it hands a blank cell to a user). */
  adopt(userId: string): void {
    this.current = userId;
  }

  /** Why the message is refused, or undefined when it is taken (a blank cell's Hello also assigns its user). */
  admit(message: ProtocolMessage): string | undefined {
    if (this.mode === "any") return undefined;
    if (this.mode === "await-hello") {
      if (message.type === "Hello") {
        this.current = message.user_id;
        this.mode = "enforce";
        return undefined;
      }
      return BEFORE_HELLO.has(message.type)
        ? undefined
        : "this cell has no user yet: greet it with Hello first";
    }
    return message.user_id === this.current ? undefined : "wrong user";
  }
}
