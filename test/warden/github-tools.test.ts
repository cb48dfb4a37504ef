import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GITHUB_HOST, type GithubFake, startGithubFake } from "../support/github-fake.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// GitHub from a user's own agent in a real cell (bwrap, no network): the scripted model lists a repository's
// issues and comments on one; the warden calls the GitHub fake (served as api.github.com under a test CA) with
// the user's GITHUB_TOKEN secret. The token stays in the warden: GitHub gets it in Authorization, while nothing
// the cell sent to the model and nothing its brain (transcripts included) holds contains it.

let h: WardenHarness;
let fake: GithubFake;
let ada: ReturnType<typeof api>;

/** Every text file of the user's brain, read through the warden's brain API (the cell reads it for the host). */
async function brainText(user: ReturnType<typeof api>, path = "."): Promise<string> {
  const listing = (await (await user("GET", `/api/brain/files?path=${encodeURIComponent(path)}`)).json()) as {
    data: { entries: Array<{ path: string; kind: string }> };
  };
  const texts: string[] = [];
  for (const entry of listing.data.entries) {
    if (entry.kind === "dir") texts.push(await brainText(user, entry.path));
    else if (/\.(md|jsonl|json|toml|txt)$/.test(entry.path)) {
      const file = (await (
        await user("GET", `/api/brain/file?path=${encodeURIComponent(entry.path)}`)
      ).json()) as {
        data: { content: string };
      };
      texts.push(file.data.content);
    }
  }
  return texts.join("\n");
}

describe("the GitHub tools from a user's own agent in a real cell", () => {
  beforeAll(async () => {
    fake = await startGithubFake();
    h = await startWardenHarness({
      egressDial: { hosts: { [GITHUB_HOST]: "127.0.0.1" }, ports: { 443: fake.port }, extraCa: [fake.caPem] },
      // The fake listens on loopback, which the host must allow its dials to reach.
      configure: (config) => ({ ...config, egress: { ...config.egress, allow_private: true } }),
    });
    ada = api(h.url, await h.addUser("ada"));
    h.warden.context.secrets.store.set("ada", "GITHUB_TOKEN", fake.token, "ada");
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });
  // Every answer the fake gave was one GitHub documents for that request.
  afterEach(() => expect(fake.violations.splice(0)).toEqual([]));

  it("lists issues and comments with the user's token, which never reaches the cell", async () => {
    h.model.enqueue(
      reply.toolCalls([{ name: "github_list_issues", arguments: { repo: "octo/demo", per_page: 2 } }]),
      reply.toolCalls([
        {
          name: "github_comment",
          arguments: { repo: "octo/demo", number: 2, body: "I can reproduce this." },
        },
      ]),
      reply.text("Done: two open issues listed, and I commented on #2."),
    );
    const response = await ada("POST", "/api/chat", { text: "what is open in octo/demo? comment on #2" });
    expect(response.status).toBe(200);

    const tools = (h.model.chatRequests()[0]?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).toEqual(
      expect.arrayContaining([
        "github_list_issues",
        "github_comment",
        "github_search_issues",
        "github_get_pull",
      ]),
    );
    const last = h.model.chatRequests().at(-1)?.messages ?? [];
    const toolText = last
      .filter((m) => m.role === "tool")
      .map((m) => String(m.content ?? ""))
      .join("\n");
    expect(toolText).toContain("#1 [open] Crash number 1 — https://github.com/octo/demo/issues/1");
    expect(toolText).toContain("More available: call again with page 2.");
    expect(toolText).toContain(
      "Commented on octo/demo#2: https://github.com/octo/demo/issues/2#issuecomment-",
    );

    // GitHub got the token, from the warden; the comment is there.
    const posted = fake.calls.find((c) => c.method === "POST");
    expect(posted).toMatchObject({
      path: "/repos/octo/demo/issues/2/comments",
      authorization: `token ${fake.token}`,
      body: { body: "I can reproduce this." },
    });
    expect(fake.comments.get("octo/demo#2")).toEqual(["I can reproduce this."]);

    // The cell never had it: not in anything it sent the model, not in its brain's files (the transcript included).
    expect(JSON.stringify(h.model.chatRequests())).not.toContain(fake.token);
    const brain = await brainText(ada);
    expect(brain).toContain("I can reproduce this.");
    expect(brain).not.toContain(fake.token);

    const audit = h.warden.context.audit
      .list({ userId: "ada" })
      .filter((e) => e.action === "integration.github");
    // Newest first.
    expect(audit.map((e) => e.detail).reverse()).toEqual([
      { action: "list_issues", repo: "octo/demo", status: 200, outcome: "ok" },
      { action: "comment", repo: "octo/demo", status: 201, outcome: "ok" },
    ]);
    expect(JSON.stringify(audit)).not.toContain(fake.token);
  });
});
