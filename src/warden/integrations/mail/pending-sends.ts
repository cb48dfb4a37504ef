import { createHash, randomBytes } from "node:crypto";

/** A send the agent asked for and the person has not confirmed yet: which draft, to whom, its exact bytes' hash. */
export interface PendingSend {
  id: string;
  userId: string;
  draftUid: number;
  recipients: string[];
  subject: string;
  /** The draft's readable text as the person will read it before confirming (its start, when long). */
  text: string;
  /** Whether `text` is only the start of the draft's text. */
  truncated: boolean;
  /** sha256 of the draft as it was when the agent asked: a draft changed since is not sent on that confirmation. */
  sha256: string;
  createdAt: number;
  expiresAt: number;
}

/** How long an unconfirmed send waits for its person. */
export const PENDING_SEND_MS = 60 * 60 * 1000;
const MAX_PENDING_PER_USER = 20;

/**
 * The sends waiting for a person's confirmation, in the warden's memory: a restart forgets them, so a send the
 * person did not confirm is never made later by surprise (the agent asks again). Each is the asking user's only.
 */
export class PendingSends {
  private readonly sends = new Map<string, PendingSend>();

  constructor(private readonly now: () => number = Date.now) {}

  add(send: Omit<PendingSend, "id" | "createdAt" | "expiresAt">): PendingSend {
    this.sweep();
    const mine = [...this.sends.values()].filter((s) => s.userId === send.userId);
    if (mine.length >= MAX_PENDING_PER_USER) {
      const oldest = mine.sort((a, b) => a.createdAt - b.createdAt)[0];
      if (oldest) this.sends.delete(oldest.id);
    }
    const createdAt = this.now();
    const pending = {
      ...send,
      id: `send_${randomBytes(12).toString("base64url")}`,
      createdAt,
      expiresAt: createdAt + PENDING_SEND_MS,
    };
    this.sends.set(pending.id, pending);
    return pending;
  }

  /** The user's pending sends, oldest first. */
  list(userId: string): PendingSend[] {
    this.sweep();
    return [...this.sends.values()]
      .filter((s) => s.userId === userId)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Takes the send out (confirmed or cancelled); undefined when it is not this user's, expired or unknown. */
  take(userId: string, id: string): PendingSend | undefined {
    this.sweep();
    const send = this.sends.get(id);
    if (!send || send.userId !== userId) return undefined;
    this.sends.delete(id);
    return send;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, send] of this.sends) if (send.expiresAt <= now) this.sends.delete(id);
  }
}

export function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
