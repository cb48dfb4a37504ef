import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pipePair } from "../../test/support/pipe-pair.js";
import { type EgressStream, EgressStreams } from "../channel/index.js";
import { ProtocolPeer } from "../channel/protocol-peer.js";
import type { CellServices } from "./cell-server.js";
import { serveCell } from "./cell-server.js";
import { createEchoDevHandler } from "./echo-handler.js";

// The inmate's half of the HTTPS proxy over a real channel: the warden's Hello turns it on, a TCP client in the
// "cell" connects to the port the tools' env names, and the warden's end (here an echo, or a handler that
// answers once the client has finished) sees one egress stream per connection.

const CA_PEM = "-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----\n";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function cell(serve: (stream: EgressStream) => void) {
  const brain = await mkdtemp(join(tmpdir(), "ironclaw-egress-cell-"));
  const [host, guest] = pipePair();
  let services: CellServices | undefined;
  const served = serveCell(
    guest,
    async (_peer, given) => {
      services = given;
      return createEchoDevHandler();
    },
    { userId: "ada", brainRoot: brain, heartbeatMs: 0 },
  );
  const warden = new ProtocolPeer(host, { userId: "ada", sessionId: "warden", heartbeatMs: 0 });
  const streams = new EgressStreams({ send: (body) => warden.send(body), accept: serve });
  warden.onMessage((m) => streams.receive(m));
  cleanups.push(async () => {
    warden.close();
    await served;
    await rm(brain, { recursive: true, force: true });
  });
  const env = () => services?.toolEnv() ?? {};
  return { warden, streams, env };
}

function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.on("data", (d) => {
      answer += d.toString();
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("the cell's HTTPS proxy listener", () => {
  it("stays off for a Hello without egress", async () => {
    const { warden, env } = await cell((s) => s.pipe(s));
    expect((await warden.call({ type: "Hello", providers: [] })).type).toBe("Ready");
    expect(env()).toEqual({});
  });

  it("listens once egress is on, points the tools' env at it and at a bundle holding the cell's CA", async () => {
    const { warden, env } = await cell((s) => s.pipe(s));
    const hello = {
      type: "Hello" as const,
      providers: [],
      egress: { ca_pem: CA_PEM, env: { GH_TOKEN: "ph-1" } },
    };
    expect((await warden.call(hello)).type).toBe("Ready");
    const vars = env();
    expect(vars.HTTPS_PROXY).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const name of ["https_proxy", "HTTP_PROXY", "http_proxy"]) expect(vars[name]).toBe(vars.HTTPS_PROXY);
    expect(vars.GH_TOKEN).toBe("ph-1");
    const bundle = vars.SSL_CERT_FILE ?? "";
    for (const name of ["NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"])
      expect(vars[name]).toBe(bundle);
    const pem = readFileSync(bundle, "utf8");
    expect(pem.endsWith(CA_PEM)).toBe(true);
    // The roots come first: more than the cell CA alone.
    expect(pem.split("BEGIN CERTIFICATE").length).toBeGreaterThan(10);
    const port = Number(new URL(vars.HTTPS_PROXY as string).port);
    expect(await exchange(port, "CONNECT example.org:443 HTTP/1.1\r\n\r\n")).toBe(
      "CONNECT example.org:443 HTTP/1.1\r\n\r\n",
    );
    // A second Hello (the warden asking for the agents again) keeps the same listener and takes new placeholders.
    await warden.call({ ...hello, egress: { ca_pem: CA_PEM, env: { GH_TOKEN: "ph-2" } } });
    expect(env().HTTPS_PROXY).toBe(vars.HTTPS_PROXY);
    expect(env().GH_TOKEN).toBe("ph-2");
  });

  it("carries many connections at once, each its own stream, answered after the client's half-close", async () => {
    const { warden, env } = await cell((s) => {
      const parts: Buffer[] = [];
      s.on("data", (d: Buffer) => parts.push(d));
      s.on("end", () => s.end(`stream ${s.id}: ${Buffer.concat(parts).length} bytes`));
    });
    // No bound host, no CA of the cell's own: the bundle holds the roots alone (a bwrap cell has no /etc).
    await warden.call({ type: "Hello", providers: [], egress: { env: {} } });
    const pem = readFileSync(env().SSL_CERT_FILE as string, "utf8");
    expect(pem.split("BEGIN CERTIFICATE").length).toBeGreaterThan(10);
    expect(pem).not.toContain(CA_PEM);
    const port = Number(new URL(env().HTTPS_PROXY as string).port);
    const big = "x".repeat(600 * 1024);
    const answers = await Promise.all([1, 2, 3, 4].map(() => exchange(port, big)));
    expect(answers.map((a) => a.replace(/^stream \d+: /, "")).sort()).toEqual(
      Array(4).fill(`${600 * 1024} bytes`),
    );
    expect(new Set(answers.map((a) => a.split(":")[0])).size).toBe(4);
  });

  it("resets the tool's connection when the warden closes its stream", async () => {
    const { warden, env } = await cell((s) => s.shut("refused by policy"));
    await warden.call({ type: "Hello", providers: [], egress: { ca_pem: CA_PEM, env: {} } });
    const port = Number(new URL(env().HTTPS_PROXY as string).port);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => socket.write("hello"));
      socket.on("error", (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
      socket.on("close", () => resolve("closed"));
    });
    expect(outcome).toMatch(/^(closed|error ECONNRESET)$/);
  });
});
