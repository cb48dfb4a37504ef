import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../core/index.js";
import { AuditStore } from "../audit-store.js";
import { openHostDb } from "../host-db.js";
import { UserStore } from "../user-store.js";
import type { SkillSecretDeclaration } from "./cell-egress-plan.js";
import { SecretUseLimiter } from "./secret-use-limiter.js";
import { WardenSecrets } from "./warden-secrets.js";

const VALUE = "ghp_TopSecretValue0123456789abcdef";
let home = "";
let db: Database.Database;
let audit: AuditStore;
let declarations: SkillSecretDeclaration[] = [];
let required: Array<{ skill: string; name: string }> = [];
let logged: string[] = [];
let secrets: WardenSecrets;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-secret-plan-"));
  db = openHostDb(home);
  await new UserStore(db).add("alice");
  audit = new AuditStore(db);
  declarations = [];
  required = [];
  logged = [];
  const logger = createLogger("test", { level: "debug" }, { write: (line: string) => logged.push(line) });
  secrets = new WardenSecrets({
    db,
    home,
    audit: (e) => audit.record(e),
    logger,
    usesPerMinute: 3,
    skills: { egressDeclarations: () => declarations, requiredEnv: () => required },
  });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe("cellEgressPlan", () => {
  it("gives the cell placeholders and the proxy values, for the user's bindings and approved skills'", () => {
    secrets.store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    secrets.store.set("alice", "LINEAR_KEY", "lin_api_0123456789", "cli");
    secrets.bindings.bind("alice", "GITHUB_TOKEN", { host: "API.GitHub.com", methods: ["GET"] }, "cli");
    declarations = [
      {
        skill: "linear",
        host: "api.linear.app",
        secret: "LINEAR_KEY",
        header: "Authorization",
        format: "{secret}",
      },
      // The same place as the user's binding: the user's wins.
      {
        skill: "gh",
        host: "api.github.com",
        secret: "GITHUB_TOKEN",
        header: "authorization",
        format: "token {secret}",
      },
    ];
    const plan = secrets.cellEgressPlan("alice", "cell-1");
    expect(Object.keys(plan.env).sort()).toEqual(["GITHUB_TOKEN", "LINEAR_KEY"]);
    expect(plan.bindings).toEqual([
      expect.objectContaining({
        host: "api.github.com",
        port: 443,
        header: "Authorization",
        format: "Bearer {secret}",
        methods: ["GET"],
        secretName: "GITHUB_TOKEN",
        secret: VALUE,
        placeholder: plan.env.GITHUB_TOKEN,
      }),
      expect.objectContaining({ host: "api.linear.app", skill: "linear", placeholder: plan.env.LINEAR_KEY }),
    ]);
    for (const placeholder of Object.values(plan.env)) {
      expect(secrets.placeholders.resolve("cell-1", placeholder)).toBeDefined();
      expect(secrets.placeholders.resolve("cell-2", placeholder)).toBeUndefined();
      // No four characters of either value appear in a placeholder.
      for (const value of [VALUE, "lin_api_0123456789"])
        for (let i = 0; i + 4 <= value.length; i++) expect(placeholder).not.toContain(value.slice(i, i + 4));
    }
    const other = secrets.cellEgressPlan("alice", "cell-2");
    expect(other.env.GITHUB_TOKEN).not.toBe(plan.env.GITHUB_TOKEN);
  });

  it("leaves out a secret that is not set, and logs why without any value", () => {
    secrets.store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    declarations = [
      {
        skill: "notion",
        host: "api.notion.com",
        secret: "NOTION_KEY",
        header: "Authorization",
        format: "Bearer {secret}",
      },
      {
        skill: "evil",
        host: "*.github.com",
        secret: "GITHUB_TOKEN",
        header: "Authorization",
        format: "{secret}",
      },
      { skill: "evil", host: "api.github.com", secret: "GITHUB_TOKEN", header: "Host", format: "{secret}" },
    ];
    required = [
      { skill: "gh", name: "GITHUB_TOKEN" },
      { skill: "weather", name: "WEATHER_KEY" },
    ];
    const plan = secrets.cellEgressPlan("alice", "cell-1");
    expect(plan.env).toEqual({ GITHUB_TOKEN: expect.stringMatching(/^ironclaw-ph-/) });
    expect(plan.bindings).toEqual([]);
    expect(plan.unresolved).toEqual([
      {
        secretName: "GITHUB_TOKEN",
        skill: "evil",
        host: "*.github.com",
        reason: "invalid declaration",
        problem: expect.stringMatching(/^host: must be an exact DNS name/),
      },
      {
        secretName: "GITHUB_TOKEN",
        skill: "evil",
        host: "api.github.com",
        reason: "invalid declaration",
        problem: expect.stringMatching(/^header: must not be one the proxy controls/),
      },
      { secretName: "NOTION_KEY", skill: "notion", host: "api.notion.com", reason: "missing secret" },
      { secretName: "WEATHER_KEY", skill: "weather", reason: "missing secret" },
    ]);
    expect(logged.join("")).toContain("secret not given to the cell: missing secret");
    expect(logged.join("")).not.toContain(VALUE);
  });

  it("reports bindings whose secret is missing and which skills need which secret", () => {
    secrets.bindings.bind("alice", "STRIPE_KEY", { host: "api.stripe.com" }, "cli");
    declarations = [
      {
        skill: "gh",
        host: "api.github.com",
        secret: "GITHUB_TOKEN",
        header: "Authorization",
        format: "Bearer {secret}",
      },
    ];
    required = [{ skill: "gh-cli", name: "GITHUB_TOKEN" }];
    secrets.store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    const overview = secrets.overview("alice");
    expect(overview.secrets.map((s) => s.name)).toEqual(["GITHUB_TOKEN"]);
    expect(overview.bindings.map((b) => [b.secret, b.host, b.skill, b.secret_set])).toEqual([
      ["STRIPE_KEY", "api.stripe.com", null, false],
      ["GITHUB_TOKEN", "api.github.com", "gh", true],
    ]);
    expect(overview.needs).toEqual([{ secret: "GITHUB_TOKEN", skills: ["gh", "gh-cli"], secret_set: true }]);
    expect(JSON.stringify(overview)).not.toContain(VALUE);
  });
});

describe("rateLimitFor", () => {
  it("lets the proxy's uses through up to the limit, then says why and when to retry", () => {
    secrets.store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    secrets.bindings.bind("alice", "GITHUB_TOKEN", { host: "api.github.com" }, "cli");
    const [binding] = secrets.cellEgressPlan("alice", "cell-1").bindings;
    if (!binding) throw new Error("no binding");
    const limit = secrets.rateLimitFor("alice", "cell-1");
    // usesPerMinute is 3 in this suite.
    for (let i = 0; i < 3; i++) expect(limit({ binding, method: "GET", path: "/user" })).toBeUndefined();
    expect(limit({ binding, method: "GET", path: "/user" })).toMatch(
      /^secret GITHUB_TOKEN was used 3 times in the last minute; retry in \d+ s$/,
    );
    const used = audit.list({ userId: "alice", action: "secret.used" });
    expect(used).toHaveLength(3);
    expect(used[0]?.detail).toEqual({
      secretName: "GITHUB_TOKEN",
      cellId: "cell-1",
      host: "api.github.com",
      method: "GET",
      path: "/user",
    });
  });
});

describe("SecretUseLimiter", () => {
  it("admits N uses of a secret per minute, audits each, and refuses the next with when to retry", () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const limiter = new SecretUseLimiter({ usesPerMinute: 2, audit: (e) => audit.record(e), now: () => now });
    const use = {
      userId: "alice",
      cellId: "cell-1",
      secretName: "GITHUB_TOKEN",
      host: "api.github.com",
      method: "GET",
      path: "/user?access_token=x",
    };
    expect(limiter.admit(use)).toEqual({ ok: true });
    now += 10_000;
    expect(limiter.admit(use)).toEqual({ ok: true });
    // Another secret has its own allowance.
    expect(limiter.admit({ ...use, secretName: "OTHER" })).toEqual({ ok: true });
    now += 10_000;
    expect(limiter.admit(use)).toEqual({ ok: false, reason: "rate_limited", retryAfterMs: 40_000 });
    now += 40_000;
    expect(limiter.admit(use)).toEqual({ ok: true });
    const trail = audit.list({ userId: "alice" }).map((r) => r.action);
    expect(trail.filter((a) => a === "secret.used")).toHaveLength(4);
    expect(trail.filter((a) => a === "secret.rate_limited")).toHaveLength(1);
    expect(audit.list({ action: "secret.used", limit: 1 })[0]?.detail).toMatchObject({ path: "/user" });
  });
});
