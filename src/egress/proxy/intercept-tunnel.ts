import type { Duplex } from "node:stream";
import { createSecureContext, type SecureContext, TLSSocket } from "node:tls";
import { EgressRefusal } from "../egress-refusal.js";
import { ByteReader, ProtocolRefusal } from "./byte-reader.js";
import type { CellCa } from "./cell-ca.js";
import { parseRequestHead } from "./http-head.js";
import { forwardRequest, relayResponse } from "./intercepted-exchange.js";
import type { ProxyContext, ProxyLimits } from "./proxy-context.js";
import { type AdmittedRequest, admitRequest } from "./request-policy.js";
import { replyAndClose } from "./status-reply.js";
import { dialTls, resolveOnce } from "./upstream-dial.js";
import { withTimeout } from "./with-timeout.js";

const contexts = new WeakMap<CellCa, Map<string, SecureContext>>();

/** The TLS context presenting `host`'s leaf, built once per CA and host. */
function secureContextFor(ca: CellCa, host: string): SecureContext {
  const perCa = contexts.get(ca) ?? new Map<string, SecureContext>();
  contexts.set(ca, perCa);
  let context = perCa.get(host);
  if (!context) {
    const leaf = ca.leafFor(host);
    context = createSecureContext({ key: leaf.keyPem, cert: leaf.certPem });
    perCa.set(host, context);
  }
  return context;
}

/**
 * Terminates the cell's TLS for a bound host (the SNI must name the CONNECT host) and serves its HTTP/1.1 requests
 * one by one over one upstream connection, re-dialled when the upstream closes it. A refused request ends the
 * tunnel: the rest of the client's bytes cannot be trusted to start a new message.
 */
export async function interceptTunnel(client: Duplex, host: string, ctx: ProxyContext, limits: ProxyLimits) {
  const context = secureContextFor(ctx.ca, host);
  const tls = new TLSSocket(client, {
    isServer: true,
    secureContext: context,
    ALPNProtocols: ["http/1.1"],
    SNICallback: (name, done) =>
      name.toLowerCase() === host ? done(null, context) : done(new Error(`SNI ${name} is not ${host}`)),
  });
  const audit = (entry: Omit<Parameters<ProxyContext["audit"]>[0], "userId" | "cellId" | "host" | "port">) =>
    ctx.audit({ userId: ctx.userId, cellId: ctx.cellId, host, port: 443, ...entry });
  try {
    await withTimeout(handshake(tls), limits.headTimeoutMs, "the TLS handshake");
  } catch (error) {
    audit({ decision: "refused", reason: `TLS handshake: ${(error as Error).message}` });
    tls.destroy();
    return;
  }
  if (String(tls.servername).toLowerCase() !== host) {
    audit({ decision: "refused", reason: `SNI ${String(tls.servername)} is not the CONNECT host` });
    tls.destroy();
    return;
  }
  const hostBindings = ctx.bindings.filter((binding) => binding.host.toLowerCase() === host);
  const reader = new ByteReader(tls);
  let upstream: { socket: TLSSocket; reader: ByteReader } | undefined;
  try {
    for (;;) {
      const raw = await withTimeout(
        reader.readUntil("\r\n\r\n", limits.maxHeadBytes, "a request head"),
        limits.headTimeoutMs,
        "a request head",
      );
      if (raw === undefined) break;
      let request: AdmittedRequest | undefined;
      try {
        request = admitRequest(parseRequestHead(raw), host, ctx.bindings, (use) => ctx.rateLimit(use));
        // A kept-alive upstream may have timed out between requests; a fresh dial resolves and checks again.
        if (upstream && (upstream.socket.destroyed || !upstream.socket.writable)) upstream = undefined;
        upstream ??= await connectUpstream(host, ctx, limits);
        if (request.expectsContinue) tls.write("HTTP/1.1 100 Continue\r\n\r\n");
        const bytesUp = await forwardRequest(request, reader, upstream.socket, ctx.bindings);
        const outcome = await relayResponse(
          request,
          upstream.reader,
          tls,
          hostBindings,
          ctx.bindings,
          limits.maxHeadBytes,
        );
        audit({
          decision: "intercept",
          ...named(request),
          status: outcome.status,
          bytesUp,
          bytesDown: outcome.bytesDown,
        });
        if (outcome.upstreamDone) {
          upstream.socket.destroy();
          upstream = undefined;
        }
        if (request.close) {
          tls.end();
          break;
        }
      } catch (error) {
        const status =
          error instanceof ProtocolRefusal ? error.status : error instanceof EgressRefusal ? 403 : 502;
        const reason = (error as Error).message;
        audit({ decision: "refused", ...(request ? named(request) : {}), status, reason });
        replyAndClose(tls, status, reason);
        break;
      }
    }
  } catch (error) {
    ctx.logger.debug({ host, err: error }, "intercepted tunnel ended");
    tls.destroy();
  } finally {
    upstream?.socket.destroy();
  }
}

function named(request: AdmittedRequest) {
  const binding = request.injected[0];
  return {
    method: request.method,
    path: request.path,
    injected: binding !== undefined,
    ...(binding
      ? { secretName: binding.secretName, ...(binding.skill ? { skill: binding.skill } : {}) }
      : {}),
  };
}

async function connectUpstream(host: string, ctx: ProxyContext, limits: ProxyLimits) {
  const address = await resolveOnce(host, ctx);
  const socket = await dialTls(host, address, ctx.portMap?.[443] ?? 443, ctx, limits.connectTimeoutMs);
  // A silent upstream ends the exchange (the reader sees the close) instead of holding the cell's tunnel.
  socket.setTimeout(limits.upstreamIdleMs, () => socket.destroy());
  return { socket, reader: new ByteReader(socket) };
}

function handshake(tls: TLSSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    tls.once("secure", () => resolve());
    tls.once("error", reject);
    tls.once("close", () => reject(new Error("the client closed the connection")));
  });
}
