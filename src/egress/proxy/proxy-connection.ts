import { isIP, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { EgressRefusal } from "../egress-refusal.js";
import { ByteReader, ProtocolRefusal } from "./byte-reader.js";
import { parseRequestHead, printable } from "./http-head.js";
import { interceptTunnel } from "./intercept-tunnel.js";
import { DEFAULT_PROXY_LIMITS, type ProxyContext, type ProxyLimits } from "./proxy-context.js";
import { replyAndClose } from "./status-reply.js";
import { dialTcp, resolveOnce } from "./upstream-dial.js";
import { withTimeout } from "./with-timeout.js";

// How long one side of a blind tunnel may stay open after the other closed.
const LINGER_MS = 10_000;
const CONNECTED = "HTTP/1.1 200 Connection Established\r\n\r\n";

/**
 * Serves one connection from a cell's HTTPS proxy port: reads the CONNECT request, then intercepts TLS for a
 * host bound to a secret (port 443 only), opens a blind tunnel to a host the egress policy allows, or refuses
 * with a 403 naming the rule. Plain HTTP (absolute-form requests, a GET to the proxy) is refused: a secret never
 * travels in clear. Resolves when the connection is over; never rejects, since a cell's bad bytes are data.
 */
export async function handleProxyConnection(client: Duplex, ctx: ProxyContext): Promise<void> {
  const limits: ProxyLimits = { ...DEFAULT_PROXY_LIMITS, ...ctx.limits };
  client.on("error", (error) => ctx.logger.debug({ err: error }, "proxy client connection failed"));
  if (client instanceof Socket) client.setNoDelay(true);
  const reader = new ByteReader(client);
  let target: { host: string; port: number } | undefined;
  try {
    const raw = await withTimeout(
      reader.readUntil("\r\n\r\n", limits.maxHeadBytes, "the CONNECT request"),
      limits.headTimeoutMs,
      "the CONNECT request",
    );
    if (raw === undefined) return void client.destroy();
    const head = parseRequestHead(raw);
    if (head.method !== "CONNECT")
      throw new ProtocolRefusal(
        `only CONNECT to an HTTPS host is proxied; plain HTTP ${head.method} is refused`,
        403,
      );
    target = parseAuthority(head.target);
    const { host, port } = target;
    const bound = ctx.bindings.some((binding) => binding.host.toLowerCase() === host);
    if (bound && port === 443) {
      client.write(CONNECTED);
      reader.detach();
      await interceptTunnel(client, host, ctx, limits);
      return;
    }
    if (!ctx.allowTunnel(host, port))
      throw new EgressRefusal(
        bound
          ? `${host} is bound to a secret on port 443 only`
          : `${host}:${port} is not allowed by the egress policy`,
      );
    const address = await resolveOnce(host, ctx);
    const upstream = await dialTcp(address, ctx.portMap?.[port] ?? port, limits.connectTimeoutMs);
    client.write(CONNECTED);
    reader.detach();
    const who = { userId: ctx.userId, cellId: ctx.cellId, host, port };
    ctx.audit({ ...who, decision: "tunnel", status: 200 });
    ctx.audit({ ...who, decision: "tunnel-closed", ...(await pipeBothWays(client, upstream)) });
  } catch (error) {
    const status =
      error instanceof ProtocolRefusal ? error.status : error instanceof EgressRefusal ? 403 : 502;
    const reason = (error as Error).message;
    ctx.audit({
      userId: ctx.userId,
      cellId: ctx.cellId,
      decision: "refused",
      host: target?.host ?? "",
      port: target?.port ?? 0,
      status,
      reason,
    });
    replyAndClose(client, status, reason);
  }
}

/** `host:port` of a CONNECT request (authority-form); IPv6 literals in brackets. */
function parseAuthority(authority: string): { host: string; port: number } {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(authority);
  const port = Number(match?.[2]);
  const host = match?.[1]?.replace(/^\[|\]$/g, "").toLowerCase();
  if (!host || !(port >= 1 && port <= 65535) || (host.includes(":") && isIP(host) !== 6))
    throw new ProtocolRefusal(`CONNECT target ${printable(authority)} is not host:port`);
  return { host, port };
}

/**
 * Copies bytes both ways until both sides have closed; when one side closes, the other is ended (its pending
 * bytes still delivered) and destroyed if it lingers. Counts what went up and down.
 */
function pipeBothWays(client: Duplex, upstream: Duplex): Promise<{ bytesUp: number; bytesDown: number }> {
  let bytesUp = 0;
  let bytesDown = 0;
  client.on("data", (chunk: Buffer) => {
    bytesUp += chunk.length;
  });
  upstream.on("data", (chunk: Buffer) => {
    bytesDown += chunk.length;
  });
  return new Promise((resolve) => {
    let open = 2;
    const closed = (other: Duplex) => () => {
      other.end();
      setTimeout(() => other.destroy(), LINGER_MS).unref();
      if (--open === 0) resolve({ bytesUp, bytesDown });
    };
    client.once("close", closed(upstream));
    upstream.once("close", closed(client));
    upstream.on("error", () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
}
