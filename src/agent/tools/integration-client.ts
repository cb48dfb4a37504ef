import type { IntegrationError, IntegrationName } from "../../contracts/index.js";

/** One action of one integration, as a tool asks for it; the arguments already passed the action's schema. */
export interface IntegrationCall {
  integration: IntegrationName;
  action: string;
  args: Record<string, unknown>;
}

/** What came back: the action's compact data, or why not (the warden's code and words). */
export type IntegrationAnswer =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; error: IntegrationError };

/**
 * How integration tools reach their service, given by whoever runs the agent: in a cell, a request to the
 * warden, which holds the user's credential and calls out for it. `configured` names the integrations the user
 * holds a credential for now, so the agent is offered only tools that can work.
 */
export interface IntegrationAccess {
  call(call: IntegrationCall, scope: { signal: AbortSignal }): Promise<IntegrationAnswer>;
  configured(): readonly IntegrationName[];
}
