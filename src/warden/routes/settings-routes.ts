import {
  settingsProposalParamsSchema,
  settingsProposalSchema,
  settingsProposalsSchema,
  settingsVariableBodySchema,
  settingsVariableParamsSchema,
  settingsVariableSetSchema,
} from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

/**
 * Configuration by conversation (seed 003 §16.5), the person's side: the changes admins' agents proposed to
 * ironclawd.toml, each confirmed or rejected by its proposer, reverted by an admin, and the form where the values
 * of the variables a proposal names are pasted. A cell has no way to these routes: they need a person's sign-in.
 */
export function settingsRoutes(ctx: Pick<WardenContext, "settings">) {
  const actor = (auth: Auth) => ({ userId: auth.userId, admin: auth.admin, via: "ui" });
  const step = (verb: "confirm" | "reject" | "revert", summary: string) =>
    defineRoute({
      method: "POST",
      url: `/api/settings/proposals/:id/${verb}`,
      summary,
      tag: "settings",
      access: "admin",
      params: settingsProposalParamsSchema,
      response: settingsProposalSchema,
      handler: async ({ auth, params }) => ctx.settings[verb](params.id, actor(auth)),
    });
  return [
    defineRoute({
      method: "GET",
      url: "/api/settings/proposals",
      summary: "Changes to ironclawd.toml proposed by admins' agents, newest first, with their diffs",
      tag: "settings",
      access: "admin",
      response: settingsProposalsSchema,
      handler: async () => ({ proposals: ctx.settings.list() }),
    }),
    step(
      "confirm",
      "Apply a proposal you made, if ironclawd.toml is still as it was (takes effect at restart)",
    ),
    step("reject", "Drop a proposal you made; nothing is written"),
    step(
      "revert",
      "Restore ironclawd.toml as it was before an applied proposal, if nothing changed it since",
    ),
    defineRoute({
      method: "PUT",
      url: "/api/settings/variables/:name",
      summary: "Paste the value of a variable a proposal names for a secret (never echoed, never audited)",
      tag: "settings",
      access: "admin",
      params: settingsVariableParamsSchema,
      body: settingsVariableBodySchema,
      response: settingsVariableSetSchema,
      handler: async ({ auth, params, body }) => {
        ctx.settings.setVariable(params.name, body.value, actor(auth));
        return { name: params.name, set: true as const };
      },
    }),
  ];
}
