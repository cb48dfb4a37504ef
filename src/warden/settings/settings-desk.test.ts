import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { AuditStore } from "../audit-store.js";
import type { ChannelLink } from "../channels/channel-links.js";
import { openHostDb } from "../host-db.js";
import { SecretKeyring } from "../secrets/index.js";
import { UserStore } from "../user-store.js";
import { HostVariables } from "./host-variables.js";
import { settingsCommands } from "./settings-command.js";
import { SettingsDesk } from "./settings-desk.js";
import { createSettingsRunner } from "./settings-runner.js";

const BASE = "# the host's settings\n[server]\nport = 7410\n";
let home: string;
let db: Database.Database;
let audit: AuditStore;
let clock: number;
let desk: SettingsDesk;
const file = () => join(home, "ironclawd.toml");
const root = { userId: "root", admin: true, via: "ui" };
const other = { userId: "eve", admin: true, via: "ui" };
const isAdmin = (id: string) => id === "root" || id === "eve";

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-settings-"));
  writeFileSync(file(), BASE);
  db = openHostDb(home);
  const users = new UserStore(db);
  await users.add("root", { admin: true });
  await users.add("eve", { admin: true });
  await users.add("bob");
  audit = new AuditStore(db);
  clock = Date.parse("2026-11-29T10:00:00Z");
  desk = new SettingsDesk({
    home,
    db,
    isAdmin,
    variables: new HostVariables(db, new SecretKeyring(home)),
    env: { ALREADY_SET: "x" },
    userExists: (id) => users.get(id) !== undefined,
    audit: (entry) => audit.record(entry),
    screenUrl: () => "http://127.0.0.1:7410/ui/#/settings",
    now: () => new Date(clock),
  });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

const propose = (value: unknown = 8080) =>
  desk.propose("root", {
    summary: "listen on 8080",
    changes: [{ path: "server.port", value: value as number }],
  });

async function thrown(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error("did not throw");
}

describe("the settings desk", () => {
  it("stores a proposal and changes nothing until its proposer confirms; then writes the file and audits who", async () => {
    const proposal = await propose();
    expect(proposal).toMatchObject({ status: "pending", takes_effect: "restart", proposed_by: "root" });
    expect(proposal.diff).toContain("-port = 7410\n+port = 8080");
    expect(readFileSync(file(), "utf8")).toBe(BASE);
    expect(await thrown(() => desk.confirm(proposal.id, other))).toBeInstanceOf(HttpError);
    const applied = await desk.confirm(proposal.id, root);
    expect(applied).toMatchObject({ status: "applied", decided_by: "user:root" });
    expect(readFileSync(file(), "utf8")).toBe("# the host's settings\n[server]\nport = 8080\n");
    expect(audit.list({ userId: "root" }).map((e) => [e.action, e.actor])).toEqual([
      ["config.applied", "user:root"],
      ["config.proposed", "cell:root"],
    ]);
    expect((await thrown(() => desk.confirm(proposal.id, root))).message).toBe(
      `proposal ${proposal.id} is applied, not pending`,
    );
  });

  it("reverts an applied change in one step, by any admin, restoring the file byte for byte", async () => {
    const proposal = await propose();
    await desk.confirm(proposal.id, root);
    expect(await desk.revert(proposal.id, other)).toMatchObject({
      status: "reverted",
      reverted_by: "user:eve",
    });
    expect(readFileSync(file(), "utf8")).toBe(BASE);
    expect(audit.list({ action: "config.reverted" })[0]?.detail).toMatchObject({
      proposal: proposal.id,
      via: "ui",
    });
    expect(await thrown(() => desk.revert(proposal.id, root))).toBeInstanceOf(ConflictError);
  });

  it("refuses to confirm or revert over a file changed since, and leaves it as it is", async () => {
    const first = await propose();
    writeFileSync(file(), `${BASE}# edited by hand\n`);
    expect((await thrown(() => desk.confirm(first.id, root))).message).toBe(
      `ironclawd.toml changed since proposal ${first.id} was made; nothing was written. Ask for a new proposal.`,
    );
    expect(readFileSync(file(), "utf8")).toBe(`${BASE}# edited by hand\n`);
    const second = await propose(9000);
    await desk.confirm(second.id, root);
    writeFileSync(file(), "[server]\nport = 9001\n");
    expect((await thrown(() => desk.revert(second.id, root))).message).toMatch(
      /changed since proposal .* was applied; nothing was restored/,
    );
    expect(readFileSync(file(), "utf8")).toBe("[server]\nport = 9001\n");
  });

  it("lets a proposal expire after a day, and a rejected one writes nothing", async () => {
    const late = await propose();
    clock += 24 * 60 * 60 * 1000;
    expect(desk.list().find((p) => p.id === late.id)?.status).toBe("expired");
    expect(await thrown(() => desk.confirm(late.id, root))).toBeInstanceOf(ConflictError);
    const dropped = await propose();
    expect((await desk.reject(dropped.id, root)).status).toBe("rejected");
    expect(readFileSync(file(), "utf8")).toBe(BASE);
    expect(audit.list({ action: "config.rejected" })).toHaveLength(1);
  });

  it("holds a confirmation until the secret the change names is pasted into the form", async () => {
    const slack = await desk.propose("root", {
      summary: "connect Slack",
      changes: [
        { path: "integrations.slack.bot_token_env", value: "SLACK_BOT_TOKEN" },
        { path: "integrations.slack.signing_secret_env", value: "ALREADY_SET" },
      ],
    });
    expect(slack.secrets).toEqual([
      { name: "ALREADY_SET", set: true },
      { name: "SLACK_BOT_TOKEN", set: false },
    ]);
    expect((await thrown(() => desk.confirm(slack.id, root))).message).toBe(
      "SLACK_BOT_TOKEN has no value yet: paste it into the form at http://127.0.0.1:7410/ui/#/settings first; nothing was written",
    );
    // The form takes only what a proposal names, and not what the warden's own environment sets (that wins).
    expect(() => desk.setVariable("OTHER_TOKEN", "x", root)).toThrow(/a pending or applied proposal names/);
    expect(() => desk.setVariable("ALREADY_SET", "x", root)).toThrow(/wins over this form/);
    desk.setVariable("SLACK_BOT_TOKEN", "xoxb-pasted-in-the-form", root);
    expect((await desk.confirm(slack.id, root)).status).toBe("applied");
    expect(new HostVariables(db, new SecretKeyring(home)).values()).toEqual({
      SLACK_BOT_TOKEN: "xoxb-pasted-in-the-form",
    });
    expect(JSON.stringify(audit.list())).not.toContain("xoxb-pasted-in-the-form");
  });

  it("takes /confirm, /reject and /revert from the proposer's paired chat only", async () => {
    const commands = settingsCommands(desk, isAdmin);
    const chat = (userId: string): ChannelLink => ({
      linkedAt: "2026-11-29T09:00:00.000Z",
      kind: "telegram",
      bot: "family",
      senderId: "1",
      userId,
      chatId: "1",
    });
    const proposal = await propose();
    expect(await commands.confirm(chat("eve"), proposal.id)).toBe(
      `Only root, whose agent proposed it, may confirm proposal ${proposal.id}.`,
    );
    expect(await commands.confirm(chat("root"), proposal.id)).toBe(
      `Applied proposal ${proposal.id} to ironclawd.toml. It takes effect when the warden restarts. Send /revert ${proposal.id} to undo it.`,
    );
    expect(audit.list({ action: "config.applied" })[0]?.detail).toMatchObject({ via: "telegram:family" });
    expect(await commands.revert(chat("root"), proposal.id)).toMatch(/^Reverted proposal/);
    expect(readFileSync(file(), "utf8")).toBe(BASE);
    expect(await commands.reject(chat("root"), "cfg_01JZZZZZZZZZZZZZZZZZZZZZZZ")).toBe(
      "There is no settings proposal cfg_01JZZZZZZZZZZZZZZZZZZZZZZZ.",
    );
  });

  it("refuses a non-admin's agent at the warden, whatever its cell sends", async () => {
    const runner = createSettingsRunner(desk, isAdmin);
    expect(runner.configured("bob")).toBe(false);
    const refused = await runner.run(
      "bob",
      "propose",
      { summary: "x", changes: [{ path: "server.port", value: 1 }] },
      new AbortController().signal,
    );
    expect(refused).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(desk.list()).toEqual([]);
    const invalid = await runner.run(
      "root",
      "propose",
      { summary: "x", changes: [{ path: "server.port", value: 0 }] },
      new AbortController().signal,
    );
    expect(invalid).toMatchObject({
      ok: false,
      error: { code: "invalid", message: "server.port: must be a TCP port from 1 to 65535" },
    });
  });
});
