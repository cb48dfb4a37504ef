import type { IntegrationError, IntegrationName } from "../../contracts/index.js";

/** One finished integration call: the compact data or why not, and what the audit keeps of it. */
export type IntegrationOutcome = (
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; error: IntegrationError }
) & {
  /** What the audit trail records besides the action: the target (a repository…) and the service's status. */
  audit: Record<string, string | number>;
};

/**
 * One integration as the warden runs it for a cell's user, with that user's credential: GitHub now, CalDAV
 * (tsdav) and IMAP/SMTP (imapflow + nodemailer) as further runners under their own names. The arguments arrive
 * checked against the action's schema (the frame's inbound check); a runner never sends its credential back.
 */
export interface IntegrationRunner {
  readonly name: IntegrationName;
  /** Whether the user holds what this integration needs, so their agent is offered its tools. */
  configured(userId: string): boolean;
  run(
    userId: string,
    action: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<IntegrationOutcome>;
}
