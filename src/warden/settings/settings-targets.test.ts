import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ironclawdConfigSchema, type SettingChange } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { AuditStore } from "../audit-store.js";
import { budgetOverview, ModelBudget, setBudget } from "../budget/index.js";
import { openHostDb } from "../host-db.js";
import { SecretKeyring } from "../secrets/index.js";
import { UserStore } from "../user-store.js";
import { HostVariables } from "./host-variables.js";
import { SettingsDesk } from "./settings-desk.js";
import type { BrainFiles } from "./settings-targets.js";

// Proposals to a user's agent profile and to a user's spend caps, through the same desk as ironclawd.toml: real
// files for the brains (the warden's cells write them in production), a real host.db for the caps.

const PROFILE = [
  "# The research agent",
  'name = "research"',
  'provider = "openrouter"',
  'model = "openai/gpt-4o"',
  "",
  "[retrieval]",
  "top_k = 8",
  "",
].join("\n");

let home: string;
let db: Database.Database;
let audit: AuditStore;
let users: UserStore;
let budget: ModelBudget;
let desk: SettingsDesk;
let writes: string[];
const root = { userId: "root", admin: true, via: "ui" };
const profile = () => join(home, "users", "bob", "brain", "config", "agents", "research.toml");

/** Each user's brain as a folder under home: what the warden's cell does with FileOp, done on real files. */
const brains: BrainFiles = {
  async read(userId, path) {
    try {
      return readFileSync(join(home, "users", userId, "brain", path), "utf8");
    } catch {
      return undefined;
    }
  },
  async write(userId, path, text, why) {
    writes.push(`${userId} ${path} by ${why.by}: ${why.cause}`);
    writeFileSync(join(home, "users", userId, "brain", path), text);
  },
};

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-settings-targets-"));
  mkdirSync(dirname(profile()), { recursive: true });
  writeFileSync(profile(), PROFILE);
  writeFileSync(join(home, "ironclawd.toml"), "[server]\nport = 7410\n");
  db = openHostDb(home);
  users = new UserStore(db);
  await users.add("root", { admin: true });
  await users.add("bob");
  audit = new AuditStore(db);
  budget = new ModelBudget({ db, config: ironclawdConfigSchema.parse({}) });
  writes = [];
  desk = new SettingsDesk({
    home,
    db,
    isAdmin: (id) => id === "root",
    variables: new HostVariables(db, new SecretKeyring(home)),
    env: {},
    userExists: (id) => users.get(id) !== undefined,
    brains,
    budget: { budget, users, audit },
    audit: (entry) => audit.record(entry),
    screenUrl: () => "http://127.0.0.1:7410/ui/#/settings",
  });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

async function refusal(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof Error) return error.message;
  }
  throw new Error("not refused");
}

const cheaper = (changes: SettingChange[] = [{ path: "model", value: "openai/gpt-4o-mini" }]) =>
  desk.propose("root", { target: "profile:bob/research", summary: "a cheaper model", changes });

describe("a proposal to a user's agent profile", () => {
  it("shows whose profile in the diff, changes nothing until confirmed, then writes it; a revert restores it", async () => {
    const proposal = await cheaper();
    expect(proposal).toMatchObject({
      target: "profile:bob/research",
      file: "bob's config/agents/research.toml",
      takes_effect: "next_turn",
      status: "pending",
    });
    expect(proposal.diff).toBe(
      [
        "--- bob's config/agents/research.toml",
        "+++ bob's config/agents/research.toml (proposed)",
        "@@ -1,7 +1,7 @@",
        " # The research agent",
        ' name = "research"',
        ' provider = "openrouter"',
        '-model = "openai/gpt-4o"',
        '+model = "openai/gpt-4o-mini"',
        " ",
        " [retrieval]",
        " top_k = 8",
      ].join("\n"),
    );
    expect(readFileSync(profile(), "utf8")).toBe(PROFILE);
    await desk.confirm(proposal.id, root);
    expect(readFileSync(profile(), "utf8")).toBe(PROFILE.replace("gpt-4o", "gpt-4o-mini"));
    expect(writes).toEqual([
      `bob config/agents/research.toml by user:root: settings proposal ${proposal.id} applied: a cheaper model`,
    ]);
    await desk.revert(proposal.id, root);
    expect(readFileSync(profile(), "utf8")).toBe(PROFILE);
    expect(audit.list({ userId: "root" }).map((e) => [e.action, e.detail.target])).toEqual([
      ["config.reverted", "profile:bob/research"],
      ["config.applied", "profile:bob/research"],
      ["config.proposed", "profile:bob/research"],
    ]);
  });

  it("adds a top-level key under the others, and a table key in its table", async () => {
    const proposal = await cheaper([
      { path: "description", value: "Reads papers" },
      { path: "retrieval.top_k", value: 4 },
    ]);
    await desk.confirm(proposal.id, root);
    expect(readFileSync(profile(), "utf8")).toBe(
      PROFILE.replace('gpt-4o"\n', 'gpt-4o"\ndescription = "Reads papers"\n').replace(
        "top_k = 8",
        "top_k = 4",
      ),
    );
  });

  it("names the field and the rule: unknown user, unknown profile, a value the schema refuses, a rename", async () => {
    expect(await refusal(() => desk.propose("root", { ...args(), target: "profile:carol/research" }))).toBe(
      "target: there is no user carol on this warden",
    );
    expect(await refusal(() => desk.propose("root", { ...args(), target: "profile:bob/writer" }))).toBe(
      "target: bob's brain has no agent profile writer (no config/agents/writer.toml): name one of their agents",
    );
    expect(await refusal(() => cheaper([{ path: "retrieval.top_k", value: 0 }]))).toBe(
      "retrieval.top_k: must be at least 1",
    );
    expect(await refusal(() => cheaper([{ path: "colour", value: "blue" }]))).toMatch(/colour/);
    expect(await refusal(() => cheaper([{ path: "name", value: "scholar" }]))).toMatch(
      /^name: renames the profile/,
    );
    expect(desk.list()).toEqual([]);
    expect(readFileSync(profile(), "utf8")).toBe(PROFILE);
  });

  it("refuses to confirm over a profile edited since, and leaves it as it is", async () => {
    const proposal = await cheaper();
    writeFileSync(profile(), `${PROFILE}# edited by hand\n`);
    expect(await refusal(() => desk.confirm(proposal.id, root))).toBe(
      `bob's config/agents/research.toml changed since proposal ${proposal.id} was made; nothing was written. Ask for a new proposal.`,
    );
    expect(readFileSync(profile(), "utf8")).toBe(`${PROFILE}# edited by hand\n`);
  });
});

const args = () => ({ summary: "x", changes: [{ path: "model", value: "m" }] });
const caps = () => budgetOverview(budget, { user: "bob", withHost: false }).budgets[0];
const capBob = (daily: number | null = 5) =>
  desk.propose("root", {
    target: "budget:bob",
    summary: "cap Bob at $5 a day",
    changes: [{ path: "daily_usd", value: daily }],
  });

describe("a proposal to a user's spend caps", () => {
  it("shows the cap before and after, sets it through the budget admin once confirmed, and a revert removes it", async () => {
    const proposal = await capBob();
    expect(proposal).toMatchObject({ file: "bob's spend caps", takes_effect: "now" });
    expect(proposal.diff).toContain("-daily_usd = none\n+daily_usd = 5");
    expect(caps()).toBeUndefined();
    await desk.confirm(proposal.id, root);
    expect(caps()).toMatchObject({ party: "user:bob", daily_usd: 5, monthly_usd: null });
    expect(audit.list({ action: "budget.set" })[0]).toMatchObject({ actor: "user:root", userId: "bob" });
    await desk.revert(proposal.id, root);
    expect(caps()).toBeUndefined();
  });

  it("takes a cap finer than the store keeps (micro-dollars) as it will be kept, so it can be reverted", async () => {
    const fine = await capBob(1.0000004);
    expect(fine.diff).toContain("+daily_usd = 1\n");
    await desk.confirm(fine.id, root);
    await desk.revert(fine.id, root);
    expect(caps()).toBeUndefined();
  });

  it("restores the cap there was before, and refuses a cap changed since the proposal", async () => {
    setBudget({ budget, users, audit }, { user: "bob", daily_usd: 2, monthly_usd: 40 }, "user:root");
    const raise = await capBob(5);
    expect(raise.diff).toContain("-daily_usd = 2\n+daily_usd = 5\n monthly_usd = 40");
    await desk.confirm(raise.id, root);
    await desk.revert(raise.id, root);
    expect(caps()).toMatchObject({ daily_usd: 2, monthly_usd: 40 });

    const stale = await capBob(7);
    setBudget({ budget, users, audit }, { user: "bob", daily_usd: 3 }, "user:root");
    expect(await refusal(() => desk.confirm(stale.id, root))).toMatch(
      /^bob's spend caps changed since proposal .* was made; nothing was written/,
    );
    expect(caps()).toMatchObject({ daily_usd: 3 });
  });

  it("names the field and the rule: a negative cap, a key that is not a cap, an unknown user", async () => {
    const error = await capBob(-1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe("daily_usd: must be at least 0 (US dollars)");
    expect(
      await refusal(() =>
        desk.propose("root", {
          target: "budget:bob",
          summary: "x",
          changes: [{ path: "weekly_usd", value: 1 }],
        }),
      ),
    ).toBe("weekly_usd: is not a spend cap: a budget has daily_usd and monthly_usd");
    expect(
      await refusal(() =>
        desk.propose("root", {
          target: "budget:carol",
          summary: "x",
          changes: [{ path: "daily_usd", value: 1 }],
        }),
      ),
    ).toBe("target: there is no user carol on this warden");
    expect(desk.list()).toEqual([]);
  });
});
