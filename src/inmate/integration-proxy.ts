import type { IntegrationAccess } from "../agent/index.js";
import type { ProtocolPeer } from "../channel/index.js";
import type { Hello, IntegrationName } from "../contracts/cell/index.js";

/** How long the warden may take to answer one integration call (GitHub's slowest searches take seconds). */
const INTEGRATION_REPLY_MS = 60_000;

/**
 * The integration tools' way out of the cell: each call is an IntegrationRequest to the warden, which holds the
 * user's credential, checks the arguments again and calls the service. Which integrations exist for this user
 * is what the warden's latest Hello said (`learn`), so the agent is offered only tools that can work.
 */
export function createProxyIntegrations(
  peer: ProtocolPeer,
): IntegrationAccess & { learn(hello: Hello): void } {
  let configured: readonly IntegrationName[] = [];
  return {
    configured: () => configured,
    learn(hello) {
      configured = [...(hello.integrations ?? [])].sort();
    },
    async call(call, { signal }) {
      signal.throwIfAborted();
      const reply = await peer.call(
        { type: "IntegrationRequest", integration: call.integration, action: call.action, args: call.args },
        { timeoutMs: INTEGRATION_REPLY_MS, signal },
      );
      if (reply.type === "IntegrationResult") {
        if (reply.ok && reply.data) return { ok: true, data: reply.data };
        if (reply.error) return { ok: false, error: reply.error };
      }
      // The warden's inbound check refused the frame: its message names the field and the rule.
      if (reply.type === "Error") return { ok: false, error: { code: "invalid", message: reply.message } };
      throw new Error(`the warden answered an integration request with ${reply.type}`);
    },
  };
}
