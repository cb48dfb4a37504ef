import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A brain's own deny list names an address; the agent asks for it under another name. The cell has no DNS, so
// only the warden's lookup can see where the name leads. The host allows private targets here, so the deny list
// alone stands between the browser and the service.

let h: WardenHarness;
let call: ReturnType<typeof api>;
let service: Server;
let port = 0;
let hits = 0;

const brain = (deny: string[]) => `default_agent = "assistant"

[tools.network]
egress = "allow"
deny_hosts = ${JSON.stringify(deny)}

[tools.browser]
allow_private = true

[indexing]
embedder = "provider"
embedding_provider = "local"
embedding_model = "test-embed"
`;

beforeAll(async () => {
  service = createServer((_request, response) => {
    hits++;
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("the private service");
  });
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  port = (service.address() as AddressInfo).port;
  h = await startWardenHarness({
    configure: (config) => ({ ...config, egress: { ...config.egress, allow_private: true } }),
  });
  call = api(h.url, await h.addUser("nina"));
}, 120_000);
afterAll(async () => {
  await h?.close();
  service?.closeAllConnections();
  await new Promise((resolve) => service?.close(resolve));
});

async function browse(url: string) {
  h.model.enqueue(reply.toolCalls([{ name: "browser", arguments: { url } }]), reply.text("Done."));
  const answer = (await (await call("POST", "/api/chat", { text: `read ${url}` })).json()) as {
    data: { tools: Array<{ isError: boolean; content: string }> };
  };
  return answer.data.tools[0];
}

async function setBrain(deny: string[]) {
  const put = await call("PUT", "/api/brain/file", { path: "config/irowclaw.toml", content: brain(deny) });
  expect(put.status).toBe(200);
}

describe("a brain's denied address", () => {
  it("is reached under another name without the deny (the positive control), and refused with it", async () => {
    await setBrain([]);
    const open = await browse(`http://localhost:${port}/`);
    expect(open?.content).toContain("the private service");
    const reached = hits;
    expect(reached).toBe(1);

    await setBrain(["127.0.0.1"]);
    const denied = await browse(`http://localhost:${port}/`);
    expect(denied?.isError).toBe(true);
    expect(denied?.content).toMatch(
      /localhost resolves to 127\.0\.0\.1, which is on the deny list \(127\.0\.0\.1\)/,
    );
    expect(hits).toBe(reached);
  }, 120_000);
});
