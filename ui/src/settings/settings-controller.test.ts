import { describe, expect, it } from "vitest";
import type { SettingsProposal } from "../api/settings-endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createSettingsController } from "./settings-controller.js";

const ID = "cfg_01JDAXW3Q3M6Y9T7S5R2K8N4PZ";
const proposal: SettingsProposal = {
  id: ID,
  status: "pending",
  summary: "Connect Slack",
  target: "ironclawd.toml",
  file: "ironclawd.toml",
  changes: [{ path: "integrations.slack.bot_token_env", value: "SLACK_BOT_TOKEN" }],
  diff: '+bot_token_env = "SLACK_BOT_TOKEN"',
  takes_effect: "restart",
  secrets: [{ name: "SLACK_BOT_TOKEN", set: false }],
  proposed_by: "root",
  created_at: "2026-11-29T10:00:00.000Z",
  expires_at: "2026-11-30T10:00:00.000Z",
};

/** A fake warden holding one proposal whose secret must be pasted before it can be confirmed. */
function warden() {
  let current = proposal;
  return fakeApi({
    "GET /api/settings/proposals": () => ok({ proposals: [current] }),
    "PUT /api/settings/variables/:name": (args) => {
      current = { ...current, secrets: [{ name: "SLACK_BOT_TOKEN", set: true }] };
      return ok({ name: (args.params as { name: string }).name, set: true as const });
    },
    "POST /api/settings/proposals/:id/confirm": () => {
      if (!current.secrets.every((s) => s.set))
        return refused(409, "conflict", "SLACK_BOT_TOKEN has no value yet");
      current = { ...current, status: "applied", decided_by: "user:root" };
      return ok(current);
    },
    "POST /api/settings/proposals/:id/revert": () => {
      current = { ...current, status: "reverted" };
      return ok(current);
    },
  });
}

describe("the settings controller", () => {
  it("names the warden's refusal, stores the pasted secret without keeping it, then confirms and reverts", async () => {
    const { client, calls } = warden();
    const settings = createSettingsController(client);
    await settings.dispatch({ type: "start" });
    expect(settings.state.proposals?.map((p) => p.status)).toEqual(["pending"]);
    await settings.dispatch({ type: "confirm", id: ID });
    expect(settings.state.message).toEqual({
      level: "error",
      text: `Proposal ${ID}: SLACK_BOT_TOKEN has no value yet`,
    });
    await settings.dispatch({ type: "set-variable", name: "SLACK_BOT_TOKEN", value: "xoxb-typed-once" });
    expect(calls.find((c) => c.key === "PUT /api/settings/variables/:name")?.args).toEqual({
      params: { name: "SLACK_BOT_TOKEN" },
      body: { value: "xoxb-typed-once" },
    });
    expect(JSON.stringify(settings.state)).not.toContain("xoxb-typed-once");
    await settings.dispatch({ type: "confirm", id: ID });
    expect(settings.state.message?.text).toBe(
      `Proposal ${ID}: Applied to ironclawd.toml; it takes effect when the warden restarts.`,
    );
    expect(settings.state.proposals?.[0]?.status).toBe("applied");
    await settings.dispatch({ type: "revert", id: ID });
    expect(settings.state.proposals?.[0]?.status).toBe("reverted");
    expect(settings.state.busy).toBe(false);
  });
});
