import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EgressRefusal, fetchPage } from "../../src/egress/index.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The browser tool reaching a service of the host itself through an address that is not loopback: the host's
// own interface addresses, and IPv6 forms that embed an IPv4 address (IPv4-compatible `[::7f00:1]`, translated,
// NAT64, 6to4, Teredo). A service listens on every address of this host; the test process reaches it directly
// (the positive control), and then a cell's browser asks the warden for the same URLs under the host's default
// egress policy, whose refusal must name the rule and let no request through.

let h: WardenHarness;
let call: ReturnType<typeof api>;
let service: Server;
let port = 0;
let hits = 0;

// The brain lets its browser go anywhere: only the host's policy, applied by the warden, decides.
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

/** This host's addresses on interfaces other than loopback (link-local ones need a scope and are private). */
function ownAddresses(): Array<{ name: string; address: string; family: string }> {
  return Object.entries(networkInterfaces()).flatMap(([name, infos]) =>
    (infos ?? [])
      .filter((i) => !i.internal && !i.address.toLowerCase().startsWith("fe80:"))
      .map((i) => ({ name, address: i.address, family: i.family })),
  );
}
const literal = (address: string) => (address.includes(":") ? `[${address}]` : address);
const urlOf = (address: string) => `http://${literal(address)}:${port}/secret`;

beforeAll(async () => {
  service = createServer((_request, response) => {
    hits++;
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("the host's own admin page");
  });
  // Dual stack, every address of this host.
  await new Promise<void>((resolve) => service.listen(0, "::", resolve));
  port = (service.address() as AddressInfo).port;
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  call = api(h.url, await h.addUser("mallory"));
  const put = await call("PUT", "/api/brain/file", { path: "config/irowclaw.toml", content: OPEN_BRAIN });
  expect(put.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await h?.close();
  service?.closeAllConnections();
  await new Promise((resolve) => service?.close(resolve));
});

/** One chat turn whose model asks the browser for every URL; the tool results, in order. */
async function browseAll(urls: readonly string[]) {
  h.model.enqueue(
    reply.toolCalls(urls.map((url, i) => ({ name: "browser", arguments: { url }, id: `call_${i}` }))),
    reply.text("Done."),
  );
  const answer = (await (await call("POST", "/api/chat", { text: "read these" })).json()) as {
    data: { tools: Array<{ isError: boolean; content: string }> };
  };
  return answer.data.tools;
}

describe("the host's own addresses", () => {
  it("are refused to a cell's browser, naming the interface, though a direct request reaches the service", async () => {
    const own = ownAddresses();
    expect(own.length).toBeGreaterThan(0);
    const v4 = own.find((a) => a.family === "IPv4");
    const urls = own.map((a) => urlOf(a.address));
    if (v4) urls.push(urlOf(`::ffff:${v4.address}`));
    // The positive control: each of these URLs reaches the service from this process.
    for (const url of urls)
      expect([url, await (await fetch(url)).text()]).toEqual([url, "the host's own admin page"]);
    const reached = hits;

    const tools = await browseAll(urls);
    expect(tools).toHaveLength(urls.length);
    tools.forEach((tool, i) => {
      expect([urls[i], tool.isError]).toEqual([urls[i], true]);
      expect(tool.content).toMatch(/is an address of this host \(\w+\)/);
    });
    expect(hits).toBe(reached);
    const refused = h.warden.context.audit.list({ userId: "mallory", action: "egress.refused" });
    expect(refused.map((e) => String(e.detail.reason))).toEqual(
      expect.arrayContaining(own.map((a) => `${a.address} is an address of this host (${a.name})`)),
    );
  }, 60_000);
});

describe("IPv6 forms that embed an IPv4 address", () => {
  // 127.0.0.1 written five ways, and what each is refused as.
  const forms: Array<[string, RegExp]> = [
    ["::7f00:1", /IPv4-compatible IPv6 address/],
    ["::ffff:0:7f00:1", /IPv4-translated IPv6 address/],
    ["64:ff9b::7f00:1", /private, loopback or link-local/],
    ["64:ff9b:1::7f00:1", /local-use NAT64 address/],
    ["2002:7f00:1::", /private, loopback or link-local/],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", /Teredo address/],
    ["::ffff:7f00:1", /private, loopback or link-local/],
  ];

  it("are refused by the warden before any connection, each naming its rule", async () => {
    // The positive control: with private targets allowed, each form passes the policy and goes to the network;
    // the mapped form reaches the service, the others fail there (no sit tunnel, NAT64 or relay on this host).
    const before = hits;
    const open = { egress: "allow" as const, allowHosts: [], denyHosts: [], allowPrivate: true };
    const outcomes = await Promise.all(
      forms.map(([address]) =>
        fetchPage(
          urlOf(address),
          open,
          { maxBytes: 1024, timeoutMs: 1500, maxRedirects: 0 },
          AbortSignal.timeout(5000),
        )
          .then((page) => page.body.toString())
          .catch((error: Error) =>
            error instanceof EgressRefusal ? `refused: ${error.message}` : "network",
          ),
      ),
    );
    expect(outcomes).not.toContainEqual(expect.stringMatching(/^refused/));
    expect(outcomes.at(-1)).toBe("the host's own admin page");
    expect(hits).toBe(before + 1);

    const tools = await browseAll(forms.map(([address]) => urlOf(address)));
    forms.forEach(([address, rule], i) => {
      expect([address, tools[i]?.isError]).toEqual([address, true]);
      expect([address, tools[i]?.content]).toEqual([address, expect.stringMatching(rule)]);
    });
    expect(hits).toBe(before + 1);
  }, 60_000);
});
