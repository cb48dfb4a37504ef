import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { githubSkillMd, skillArchive } from "../support/skill-archive.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// /api/skills on a real warden: an archive is uploaded for review, installed only by an approval of the hash the
// review showed, listed with what it may reach, and removed; every refusal names the field and the rule.

let h: WardenHarness;
let scratch: string;
let ada: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let boss: ReturnType<typeof api>;
let adaToken: string;

const skillMd = githubSkillMd;
const archive = (
  name: string,
  files: Record<string, string | Buffer>,
  options?: Parameters<typeof skillArchive>[3],
) => skillArchive(scratch, name, files, options);

async function review(bytes: Buffer, query = "", token = adaToken) {
  return fetch(`${h.url}/api/skills/review${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/gzip" },
    body: bytes,
  });
}

async function answer<T>(response: Response): Promise<{ status: number; data: T; message: string }> {
  const body = (await response.json()) as { data: T; error: { message: string } | null };
  return { status: response.status, data: body.data, message: body.error?.message ?? "" };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "ironclaw-skills-routes-"));
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  adaToken = await h.addUser("ada");
  ada = api(h.url, adaToken);
  bob = api(h.url, await h.addUser("bob"));
  boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("/api/skills", () => {
  it("reviews an upload, installs exactly the approved hash, lists what it may reach and removes it", async () => {
    const reviewed = await answer<{ name: string; sha256: string; replaces: unknown; reach: unknown }>(
      await review(await archive("gh-issues", { "SKILL.md": skillMd("gh-issues") })),
    );
    expect(reviewed.status).toBe(200);
    expect(reviewed.data).toMatchObject({ name: "gh-issues", replaces: null });
    expect(reviewed.data.reach).toEqual({
      hosts: [
        {
          host: "api.github.com",
          secret: "GITHUB_TOKEN",
          header: "Authorization",
          format: "Bearer {secret}",
        },
      ],
      secrets: ["GITHUB_TOKEN"],
      env: [],
      bins: ["sh"],
      any_bins: [],
      allowed_tools: ["bash"],
    });
    expect((await answer<unknown>(await ada("GET", "/api/skills"))).data).toEqual({
      user: "ada",
      skills: [],
    });

    const installed = await answer<{ sha256: string; approved_by: string; available: boolean }>(
      await ada("POST", "/api/skills/install", { sha256: reviewed.data.sha256 }),
    );
    expect(installed.status).toBe(200);
    expect(installed.data).toMatchObject({
      sha256: reviewed.data.sha256,
      approved_by: "user:ada",
      available: true,
    });
    const listed = await answer<{ skills: Array<{ name: string }> }>(await ada("GET", "/api/skills"));
    expect(listed.data.skills.map((s) => s.name)).toEqual(["gh-issues"]);
    // Bob sees none of it.
    expect((await answer<{ skills: unknown[] }>(await bob("GET", "/api/skills"))).data.skills).toEqual([]);

    // A new version is reviewed as replacing the installed one, and installed only by its own hash.
    const next = await answer<{ sha256: string; replaces: { sha256: string } }>(
      await review(await archive("gh-issues", { "SKILL.md": skillMd("gh-issues", " v2") })),
    );
    expect(next.data.replaces.sha256).toBe(reviewed.data.sha256);
    await ada("POST", "/api/skills/install", { sha256: next.data.sha256 });
    const updated = await answer<{ skills: Array<{ sha256: string }> }>(await ada("GET", "/api/skills"));
    expect(updated.data.skills.map((s) => s.sha256)).toEqual([next.data.sha256]);

    const removed = await answer<unknown>(await ada("DELETE", "/api/skills/gh-issues"));
    expect(removed).toMatchObject({ status: 200, data: { user: "ada", name: "gh-issues", removed: true } });
    expect((await answer<{ skills: unknown[] }>(await ada("GET", "/api/skills"))).data.skills).toEqual([]);
    const actions = h.warden.context.audit.list({ userId: "ada" }).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["skill.reviewed"]));
  });

  it("names a flat archive's skill after its file name", async () => {
    const flat = await archive("weather", { "SKILL.md": skillMd("weather") }, { flat: true });
    const named = await answer<{ name: string }>(await review(flat, "?filename=weather.tgz"));
    expect([named.status, named.data.name]).toEqual([200, "weather"]);
    const bad = await answer<unknown>(await review(flat, "?filename=..%2Fweather.tgz"));
    expect([bad.status, bad.message]).toEqual([
      400,
      "$.query.filename: must be the archive's file name without a folder, ending in .tar.gz, .tgz or .tar",
    ]);
  });

  it("lists a skill whose program is not in the cell image as unavailable, with the reason", async () => {
    const md = skillMd("needs-tool").replace("bins: [sh]", "bins: [no-such-program-4711]");
    const reviewed = await answer<{ sha256: string }>(
      await review(await archive("needs-tool", { "SKILL.md": md })),
    );
    expect((await ada("POST", "/api/skills/install", { sha256: reviewed.data.sha256 })).status).toBe(200);
    const listed = await answer<{
      skills: Array<{ name: string; available: boolean; unavailable_reason: string }>;
    }>(await ada("GET", "/api/skills"));
    const skill = listed.data.skills.find((s) => s.name === "needs-tool");
    expect(skill?.available).toBe(false);
    expect(skill?.unavailable_reason).toMatch(/^needs no-such-program-4711: not in the cell image/);
    expect((await ada("DELETE", "/api/skills/needs-tool")).status).toBe(200);
  });

  it("refuses a symlink, a binary and a path out of the folder, naming the file and the rule", async () => {
    const linked = await archive(
      "linky",
      { "SKILL.md": skillMd("linky") },
      { prepare: (dir) => symlink("/root/.ssh/id_rsa", join(dir, "key")) },
    );
    const binary = await archive("binary", {
      "SKILL.md": skillMd("binary"),
      "bin/tool": Buffer.from([0x7f, 0x45, 0, 1]),
    });
    const escaping = await archive(
      "escape",
      { "SKILL.md": skillMd("escape"), "x.md": "owned" },
      { flat: true, tarArgs: ["-P", "--transform", "s,^x.md,../x.md,"] },
    );
    // One after another: each user has one upload under review at a time.
    const refusals = [];
    for (const bytes of [linked, binary, escaping])
      refusals.push(await answer<unknown>(await review(bytes, "?filename=escape.tgz")));
    expect(refusals.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(refusals[0]?.message).toMatch(/^body: linky\/key: .*link/);
    expect(refusals[1]?.message).toMatch(/^body: binary\/bin\/tool: is not a text file/);
    expect(refusals[2]?.message).toMatch(/^body: \.\.\/x\.md: escapes the skill's folder/);
    for (const r of refusals) expect(r.message).not.toContain(h.home);
    expect(h.warden.context.audit.list({ userId: "ada", action: "skill.refused" })).toHaveLength(3);
  });

  it("installs only the hash under review: another is a 409 naming both, none under review a 409 too", async () => {
    const empty = await answer<unknown>(await bob("POST", "/api/skills/install", { sha256: "b".repeat(64) }));
    expect([empty.status, empty.message]).toEqual([
      409,
      "body.sha256: nothing of bob's is under review; send the archive to POST /api/skills/review first",
    ]);
    const reviewed = await answer<{ sha256: string }>(
      await review(await archive("pinned", { "SKILL.md": skillMd("pinned") })),
    );
    const other = "c".repeat(64);
    const wrong = await answer<unknown>(await ada("POST", "/api/skills/install", { sha256: other }));
    expect([wrong.status, wrong.message]).toEqual([
      409,
      `body.sha256: you approved ${other}, but the skill under review (pinned) is ${reviewed.data.sha256}; review it again`,
    ]);
    const malformed = await answer<unknown>(await ada("POST", "/api/skills/install", { sha256: "XYZ" }));
    expect([malformed.status, malformed.message]).toEqual([
      400,
      "$.body.sha256: must be 64 lowercase hex characters",
    ]);
  });

  it("refuses a body that is not an archive, one over 50 MiB, another user's skills and an unknown skill", async () => {
    const json = await answer<unknown>(await ada("POST", "/api/skills/review", { sha256: "a" }));
    expect(json.status).toBe(415);
    expect(json.message).toMatch(/^body: must be a skill archive/);
    const huge = await answer<unknown>(await review(Buffer.alloc(50 * 1024 * 1024 + 1)));
    expect([huge.status, huge.message]).toEqual([
      413,
      "body: a skill archive is at most 50 MiB (52428800 bytes); this one has 52428801",
    ]);
    const foreign = await answer<unknown>(await bob("GET", "/api/skills?user=ada"));
    expect([foreign.status, foreign.message]).toEqual([
      403,
      "query.user: only an admin may act for another user (you are bob)",
    ]);
    expect((await answer<{ user: string }>(await boss("GET", "/api/skills?user=ada"))).data.user).toBe("ada");
    const ghost = await answer<unknown>(await boss("GET", "/api/skills?user=ghost"));
    expect([ghost.status, ghost.message]).toEqual([404, "query.user: no user named ghost"]);
    const unknown = await answer<unknown>(await ada("DELETE", "/api/skills/nothing-here"));
    expect([unknown.status, unknown.message]).toEqual([
      404,
      "params.name: ada has no skill named nothing-here",
    ]);
    const badName = await answer<unknown>(await ada("DELETE", "/api/skills/Bad_Name"));
    expect(badName.status).toBe(400);
    expect(badName.message).toMatch(/^\$\.params\.name: /);
  });

  it("is in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, object>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/skills",
        "/api/skills/review",
        "/api/skills/install",
        "/api/skills/{name}",
      ]),
    );
  });
});
