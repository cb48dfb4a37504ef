import type { SettingsArgs } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import type { IntegrationOutcome, IntegrationRunner } from "../integrations/index.js";
import type { SettingsDesk } from "./settings-desk.js";

/**
 * The settings tool's side in the warden: offered only to admins' agents, and a request from anyone else's cell
 * is refused here again (a cell may send any frame). A change the desk refuses comes back to the agent as the
 * key and the rule, so it can correct itself.
 */
export function createSettingsRunner(
  desk: SettingsDesk,
  isAdmin: (userId: string) => boolean,
): IntegrationRunner {
  return {
    name: "settings",
    configured: isAdmin,
    async run(userId, action, args): Promise<IntegrationOutcome> {
      if (!isAdmin(userId))
        return {
          ok: false,
          error: {
            code: "forbidden",
            message:
              "only an admin's agent may propose changes to the warden's settings; this user is not an admin",
          },
          audit: { refused: "not_admin" },
        };
      if (action !== "propose")
        return { ok: false, error: { code: "invalid", message: `unknown action ${action}` }, audit: {} };
      try {
        const proposal = await desk.propose(userId, args as SettingsArgs["propose"]);
        return {
          ok: true,
          data: {
            proposal_id: proposal.id,
            status: proposal.status,
            target: proposal.target,
            file: proposal.file,
            diff: proposal.diff,
            takes_effect: proposal.takes_effect,
            secrets: proposal.secrets,
            expires_at: proposal.expires_at,
          },
          audit: { proposal: proposal.id, keys: proposal.changes.length },
        };
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        return {
          ok: false,
          error: { code: "invalid", message: error.message.slice(0, 2000) },
          audit: { refused: error.path.slice(0, 200) },
        };
      }
    },
  };
}
