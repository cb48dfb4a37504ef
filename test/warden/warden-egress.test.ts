import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

let h: WardenHarness;
let call: ReturnType<typeof api>;
let pages: Server;
let pagesUrl = "";
let hits = 0;

// The brain lets its browser go anywhere, loopback included: only the host's policy, applied by the warden,
// decides. The cell itself has no network at all.
const OPEN_BRAIN = `default_agent = "assistant"

[tools.network]
egress = "allow"

[tools.browser]
allow_private = true

[indexing]
embedder = "provider"
embedding_provider = "local"
embedding_model = "test-embed"
`;

beforeAll(async () => {
  pages = createServer((request, response) => {
    hits++;
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`page ${request.url} says: the tide is high`);
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  h = await startWardenHarness({
    configure: (config) => ({
      ...config,
      egress: { ...config.egress, allow_private: true, deny_hosts: ["localhost"] },
    }),
  });
  call = api(h.url, await h.addUser("finn"));
  const put = await call("PUT", "/api/brain/file", { path: "config/irowclaw.toml", content: OPEN_BRAIN });
  expect(put.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => pages?.close(resolve));
});

const browse = async (url: string) => {
  h.model.enqueue(reply.toolCalls([{ name: "browser", arguments: { url } }]), reply.text("Read it."));
  const answer = (await (await call("POST", "/api/chat", { text: `read ${url}` })).json()) as {
    data: { tools: Array<{ tool: string; isError: boolean; content: string }> };
  };
  return answer.data.tools[0];
};

describe("the browser tool's fetches go through the warden's egress proxy", () => {
  it("fetches a page for a cell that has no network, and audits it", async () => {
    const tool = await browse(`${pagesUrl}/tides`);
    expect(tool).toMatchObject({ tool: "browser", isError: false });
    expect(tool?.content).toContain("page /tides says: the tide is high");
    expect(hits).toBe(1);
    const audit = (await (await call("GET", "/api/audit?action=egress.fetched")).json()) as {
      data: Array<{ detail: Record<string, unknown> }>;
    };
    expect(audit.data[0]?.detail).toMatchObject({ url: `${pagesUrl}/tides`, status: 200 });
  }, 60_000);

  it("refuses a host the host's policy denies, before any connection, and audits the refusal", async () => {
    const port = new URL(pagesUrl).port;
    const tool = await browse(`http://localhost:${port}/secret`);
    expect(tool?.isError).toBe(true);
    expect(tool?.content).toMatch(/deny list/);
    expect(hits).toBe(1);
    const audit = (await (await call("GET", "/api/audit?action=egress.refused")).json()) as {
      data: Array<{ detail: Record<string, unknown> }>;
    };
    expect(String(audit.data[0]?.detail.reason)).toMatch(/localhost is on the deny list/);
  }, 60_000);
});

describe("the host's private-address rule wins over a brain that allows private addresses", () => {
  let strict: WardenHarness;
  beforeAll(async () => {
    strict = await startWardenHarness();
    const own = api(strict.url, await strict.addUser("gina"));
    expect(
      (await own("PUT", "/api/brain/file", { path: "config/irowclaw.toml", content: OPEN_BRAIN })).status,
    ).toBe(200);
    call = own;
  }, 120_000);
  afterAll(async () => {
    await strict?.close();
  });

  it("refuses loopback and link-local targets and audits the refusal", async () => {
    const before = hits;
    strict.model.enqueue(
      reply.toolCalls([{ name: "browser", arguments: { url: `${pagesUrl}/private` } }]),
      reply.text("No."),
    );
    const answer = (await (await call("POST", "/api/chat", { text: "read the private page" })).json()) as {
      data: { tools: Array<{ isError: boolean; content: string }> };
    };
    expect(answer.data.tools[0]?.isError).toBe(true);
    expect(answer.data.tools[0]?.content).toMatch(/private|loopback/);
    expect(hits).toBe(before);
    const audit = strict.warden.context.audit.list({ userId: "gina", action: "egress.refused" });
    expect(String(audit[0]?.detail.reason)).toMatch(/private|loopback/);
  }, 60_000);
});
