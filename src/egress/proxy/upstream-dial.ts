import { lookup } from "node:dns/promises";
import { isIP, type Socket, connect as tcpConnect } from "node:net";
import {
  createSecureContext,
  rootCertificates,
  type SecureContext,
  type TLSSocket,
  connect as tlsConnect,
} from "node:tls";
import { checkedAddress } from "../checked-address.js";
import type { ProxyContext } from "./proxy-context.js";

/** Every address of a name from the system resolver (an address literal resolves to itself). */
export async function systemResolve(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** The address to dial for `host`: resolved once through the context, then checked (see checkedAddress). */
export async function resolveOnce(host: string, ctx: ProxyContext): Promise<string> {
  return checkedAddress(host, await ctx.resolve(host), ctx.allowPrivate);
}

/** A TCP connection to a checked address, for a blind tunnel. */
export function dialTcp(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return settle(tcpConnect({ host: address, port }), "connect", timeoutMs, `${address}:${port}`);
}

/**
 * A TLS connection to a checked address, verified as `host` against the system roots (+ extraCa), HTTP/1.1 only:
 * the proxy re-serialises requests, so it speaks only what it parses.
 */
export function dialTls(
  host: string,
  address: string,
  port: number,
  ctx: ProxyContext,
  timeoutMs: number,
): Promise<TLSSocket> {
  const socket = tlsConnect({
    host: address,
    port,
    servername: host,
    secureContext: trustContext(ctx.extraCa ?? []),
    ALPNProtocols: ["http/1.1"],
  });
  return settle(socket, "secureConnect", timeoutMs, `${host} (${address}):${port}`);
}

const trustContexts = new Map<string, SecureContext>();

/**
 * The system roots plus `extraCa`, parsed once per distinct set: building a context from ~150 root PEMs takes
 * longer than the handshake it is for.
 */
function trustContext(extraCa: readonly string[]): SecureContext {
  const key = extraCa.join("\n");
  let context = trustContexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, ...extraCa] });
    trustContexts.set(key, context);
  }
  return context;
}

function settle<T extends Socket>(socket: T, ready: string, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connecting to ${what} took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(ready, () => {
      clearTimeout(timer);
      // Requests are small writes answered at once: Nagle would hold each for the previous segment's ACK.
      socket.setNoDelay(true);
      socket.off("error", fail);
      resolve(socket);
    });
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`connecting to ${what} failed: ${error.message}`, { cause: error }));
    };
    socket.once("error", fail);
  });
}
