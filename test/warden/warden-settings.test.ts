import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHostConfig } from "../../src/cells/index.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Configuration by conversation from an admin's own agent in a real cell: the scripted model calls
// settings_propose, the warden stores the proposal and changes nothing; the admin confirms it over the API and
// the file changes, audited; a revert restores it byte for byte. A non-admin's agent has no such tool, a secret
// as a value and a file edited since are refused.

let h: WardenHarness;
let root: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
const file = () => join(h.home, "ironclawd.toml");

interface Proposal {
  id: string;
  status: string;
  diff: string;
  secrets: Array<{ name: string; set: boolean }>;
}

beforeAll(async () => {
  h = await startWardenHarness();
  root = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
  bob = api(h.url, await h.addUser("bob"));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** The last tool result the model was shown in the turn that just ran. */
function lastToolText(): string {
  const messages = h.model.chatRequests().at(-1)?.messages ?? [];
  return String(messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");
}

async function proposals(): Promise<Proposal[]> {
  const answer = (await (await root("GET", "/api/settings/proposals")).json()) as {
    data: { proposals: Proposal[] };
  };
  return answer.data.proposals;
}

describe("configuration by conversation", () => {
  it("proposes from the admin's chat, changes nothing until confirmed, applies, audits and reverts", async () => {
    const before = readFileSync(file(), "utf8");
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Accept chat messages up to 512 KiB",
            changes: [{ path: "limits.max_message_bytes", value: 524288 }],
          },
        },
      ]),
      reply.text("I proposed it; please confirm it on the Settings screen."),
    );
    expect((await root("POST", "/api/chat", { text: "let people send longer messages" })).status).toBe(200);
    const tools = (h.model.chatRequests().at(-1)?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).toContain("settings_propose");
    const told = lastToolText();
    expect(told).toMatch(
      /^Proposal cfg_\w+ is waiting for the person's confirmation; nothing has changed yet\./,
    );
    expect(told).toContain("+max_message_bytes = 524288");
    expect(told).toContain("takes effect at its next restart");

    // Unconfirmed: the file is as it was.
    expect(readFileSync(file(), "utf8")).toBe(before);
    const [pending] = await proposals();
    expect(pending).toMatchObject({ status: "pending" });
    expect(told).toContain(pending?.id);

    // Only an admin reaches the routes; the proposer confirms.
    expect((await bob("GET", "/api/settings/proposals")).status).toBe(403);
    expect((await bob("POST", `/api/settings/proposals/${pending?.id}/confirm`)).status).toBe(403);
    const confirmed = await root("POST", `/api/settings/proposals/${pending?.id}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(loadHostConfig(h.home).limits.max_message_bytes).toBe(524288);

    const reverted = await root("POST", `/api/settings/proposals/${pending?.id}/revert`);
    expect(reverted.status).toBe(200);
    expect(readFileSync(file(), "utf8")).toBe(before);
    const trail = h.warden.context.audit
      .list({ userId: "root" })
      .filter((e) => e.action.startsWith("config."))
      .map((e) => [e.action, e.actor]);
    expect(trail).toEqual([
      ["config.reverted", "user:root"],
      ["config.applied", "user:root"],
      ["config.proposed", "cell:root"],
    ]);
  });

  it("refuses a secret as a value and names the form instead; nothing is stored", async () => {
    const count = (await proposals()).length;
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Connect Slack",
            changes: [{ path: "integrations.slack.bot_token", value: "xoxb-1111-2222-abcdefabcdef" }],
          },
        },
      ]),
      reply.text("That was refused."),
    );
    await root("POST", "/api/chat", {
      text: "connect my Slack workspace, the token is xoxb-1111-2222-abcdefabcdef",
    });
    expect(lastToolText()).toMatch(
      /^settings propose was refused \(invalid\): integrations\.slack\.bot_token: holds a secret, .*set bot_token_env/,
    );
    expect(await proposals()).toHaveLength(count);
  });

  it("refuses to confirm over a file edited since the proposal", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: {
            summary: "Sign-ins last a day",
            changes: [{ path: "auth.session_ttl_hours", value: 24 }],
          },
        },
      ]),
      reply.text("Proposed."),
    );
    await root("POST", "/api/chat", { text: "make sign-ins last a day" });
    const [latest] = await proposals();
    const edited = `${readFileSync(file(), "utf8")}\n# edited by hand\n`;
    writeFileSync(file(), edited);
    const stale = await root("POST", `/api/settings/proposals/${latest?.id}/confirm`);
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("changed since proposal");
    expect(readFileSync(file(), "utf8")).toBe(edited);
  });

  it("offers a non-admin's agent no settings tool, and its call is answered as unknown", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "settings_propose",
          arguments: { summary: "x", changes: [{ path: "server.port", value: 8081 }] },
        },
      ]),
      reply.text("I cannot."),
    );
    const count = (await proposals()).length;
    await bob("POST", "/api/chat", { text: "move the warden to port 8081" });
    const tools = (h.model.chatRequests().at(-1)?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).not.toContain("settings_propose");
    expect(lastToolText()).toMatch(/^there is no tool named settings_propose/);
    expect(await proposals()).toHaveLength(count);
  });
});
