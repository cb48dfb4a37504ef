import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Memory as a new user's warden has it: no embedding provider configured, so new brains use the built-in
// embedder (its word table converted by the warden on first use), the default cell backend and blank pool,
// and a hybrid search with the default ranking. Only the chat provider is set, as a user must.

let h: WardenHarness;
let call: ReturnType<typeof api>;
const NOTE = "logs/2026-05-14.md";

beforeAll(async () => {
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      new_brains: { provider: config.new_brains.provider, model: config.new_brains.model },
    }),
  });
  call = api(h.url, await h.addUser("dana"));
}, 60_000);
afterAll(async () => {
  await h?.close();
});

type Hit = { id: string; path: string; text: string; explanation?: { summary: string } };

async function search(q: string): Promise<Hit[]> {
  const response = await call("GET", `/api/memory/search?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { hits: Hit[] } }).data.hits;
}

describe("memory with the built-in embedder, through the warden", () => {
  it("finds a note by meaning and by words, explains the hit, and forgets it for good", async () => {
    const put = await call("PUT", "/api/brain/file", {
      path: NOTE,
      content:
        "# 2026-05-14\n\n## Bicycle\n\nThe rear tyre of the bicycle needs a new inner tube, size 28 inch.\n\n" +
        "## Kitchen\n\nThe dishwasher filter was cleaned.\n",
    });
    expect(put.status).toBe(200);
    const status = (await (await call("GET", "/api/memory/status")).json()) as {
      data: { embedder: string };
    };
    expect(JSON.stringify(status.data)).toMatch(/builtin|built-in/i);

    const hits = await search("bike tyre inner tube");
    const hit = hits.find((x) => x.path === NOTE && x.text.includes("inner tube"));
    expect(hit?.explanation?.summary).toBeTruthy();

    const preview = await call("POST", "/api/memory/forget", { target: hit?.id ?? "" });
    expect(preview.status).toBe(200);
    expect(JSON.stringify(await preview.json())).toContain("inner tube");
    const file = async () =>
      ((await (await call("GET", `/api/brain/file?path=${NOTE}`)).json()) as { data: { content: string } })
        .data.content;
    expect(await file()).toContain("inner tube");

    const applied = await call("POST", "/api/memory/forget", { target: hit?.id ?? "", apply: true });
    expect(applied.status).toBe(200);
    expect(await file()).not.toContain("inner tube");
    expect(await file()).toContain("dishwasher filter");
    expect((await search("bike tyre inner tube")).filter((x) => x.text.includes("inner tube"))).toEqual([]);
  }, 60_000);

  it("answers a forget with no target with a 400 that names the field, and forgets nothing", async () => {
    const response = await call("POST", "/api/memory/forget", { target: "   ", apply: true });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("body.target");
    expect((await search("dishwasher filter")).some((x) => x.text.includes("dishwasher filter"))).toBe(true);
  });
});
