import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostPolicy, matchesHost } from "../../src/contracts/index.js";
import { EgressRefusal, fetchPage } from "../../src/egress/index.js";

/**
 * A deny of an address must hold for every way of writing or naming that address. Each spelling below is
 * fetched twice from a real server on this host: without the deny (the positive control: the spelling does
 * reach the server) and with it (refused before a request arrives).
 */
let server: Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("reached");
  });
  // Dual stack: every spelling of this host, IPv4 or IPv6, reaches it.
  await new Promise<void>((resolve) => server.listen(0, "::", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const limits = { maxBytes: 1024, timeoutMs: 5_000, maxRedirects: 2 };
const open: HostPolicy = { egress: "allow", allowHosts: [], denyHosts: [], allowPrivate: true };

async function outcome(url: string, policy: HostPolicy): Promise<string> {
  try {
    const page = await fetchPage(url, policy, limits, new AbortController().signal);
    return page.body.toString("utf8");
  } catch (error) {
    if (error instanceof EgressRefusal) return `refused: ${error.message}`;
    throw error;
  }
}

describe("deny_hosts holds for every spelling and name of a denied address", () => {
  const spellings = (p: number) => [
    `http://localhost:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://127.1:${p}/`,
    `http://2130706433:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://127.0.0.1.:${p}/`,
  ];

  it("refuses each before connecting, where each reaches the server without the deny", async () => {
    for (const url of spellings(port)) expect([url, await outcome(url, open)]).toEqual([url, "reached"]);
    const reached = requests;
    const denied = { ...open, denyHosts: ["127.0.0.1"] };
    for (const url of spellings(port))
      expect([url, await outcome(url, denied)]).toEqual([
        url,
        expect.stringMatching(/^refused: .*deny list/),
      ]);
    expect(requests).toBe(reached);
  });

  it("names the resolved address and the rule when a host name leads to a denied address", async () => {
    const denied = { ...open, denyHosts: ["::ffff:127.0.0.1"] };
    expect(await outcome(`http://localhost:${port}/`, denied)).toMatch(
      /^refused: localhost resolves to 127\.0\.0\.1, which is on the deny list \(::ffff:127\.0\.0\.1\)$/,
    );
    const v6 = { ...open, denyHosts: ["0:0:0:0:0:0:0:1"] };
    expect(await outcome(`http://[::1]:${port}/`, v6)).toMatch(/^refused: host ::1 is on the deny list/);
  });

  it("keeps other hosts reachable and name patterns matching by name", async () => {
    const denied = { ...open, denyHosts: ["10.1.2.3", "*.internal.example"] };
    expect(await outcome(`http://127.0.0.1:${port}/`, denied)).toBe("reached");
    expect(matchesHost("db.internal.example", "*.internal.example")).toBe(true);
    expect(matchesHost("127.0.0.2", "127.0.0.1")).toBe(false);
    expect(matchesHost("::ffff:10.1.2.3", "10.1.2.3")).toBe(true);
  });
});
