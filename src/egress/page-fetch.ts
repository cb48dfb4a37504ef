import { type LookupAddress, lookup } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import {
  addressDenial,
  type FetchedPage,
  type FetchLimits,
  type HostPolicy,
  parseFetchUrl,
  targetRefusal,
} from "../contracts/index.js";
import { EgressRefusal } from "./egress-refusal.js";
import { addressRefusal } from "./ip-ranges.js";

/**
 * GETs a URL under a host policy; a refusal is an EgressRefusal naming the rule. Every hop of a redirect chain is checked again, and private, denied and the
 * host's own addresses are refused in the DNS lookup the connection itself uses, so a name cannot resolve to a
 * public address for the check and to 127.0.0.1 for the connection (DNS rebinding), nor reach a denied address
 * under another name.
 */
export async function fetchPage(
  target: string,
  policy: HostPolicy,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  let url = parseUrl(target);
  for (let hop = 0; ; hop++) {
    checkTarget(url, policy);
    let response: IncomingMessage;
    try {
      response = await get(url, policy, combined);
    } catch (error) {
      throw explain(error, url, timeout, limits.timeoutMs);
    }
    const location = response.headers.location;
    if (
      response.statusCode !== undefined &&
      response.statusCode >= 300 &&
      response.statusCode < 400 &&
      location
    ) {
      response.resume();
      if (hop >= limits.maxRedirects)
        throw new Error(`more than ${limits.maxRedirects} redirects from ${target}`);
      url = parseUrl(new URL(location, url).href);
      continue;
    }
    try {
      const { body, truncated } = await readCapped(response, limits.maxBytes);
      return {
        url: url.href,
        status: response.statusCode ?? 0,
        contentType: response.headers["content-type"] ?? "",
        body,
        truncated,
      };
    } catch (error) {
      throw explain(error, url, timeout, limits.timeoutMs);
    }
  }
}

function parseUrl(text: string): URL {
  const parsed = parseFetchUrl(text);
  if ("refusal" in parsed) throw new EgressRefusal(parsed.refusal);
  return parsed.url;
}

/** The checks made before any connection: host lists, then an address literal against ranges and own addresses. */
function checkTarget(url: URL, policy: HostPolicy): void {
  const why = targetRefusal(url, policy, addressRefusal);
  if (why !== undefined) throw new EgressRefusal(why);
}

function guardedLookup(policy: HostPolicy): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, "", 4);
        return;
      }
      // Every address, not only the first: the connection may fall back to any of them.
      for (const { address } of addresses) {
        const denied = addressDenial(hostname, address, policy);
        if (denied === undefined) continue;
        callback(new EgressRefusal(denied), "", 4);
        return;
      }
      if (!policy.allowPrivate)
        for (const { address } of addresses) {
          const why = addressRefusal(address);
          if (why === undefined) continue;
          callback(new EgressRefusal(`${hostname} resolves to ${address}, ${why}`), "", 4);
          return;
        }
      const first = addresses[0];
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(new Error(`${hostname} has no addresses`), "", 4);
    });
  };
}

function get(url: URL, policy: HostPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
      method: "GET",
      headers: {
        "user-agent": "ironclaw-browser/0.1 (+https://github.com/ironclaw)",
        accept: "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
      },
      lookup: guardedLookup(policy),
      // A fresh connection each time: a pooled keep-alive socket skips the lookup, and with it the checks made
      // there, and it may have been opened under another (wider) policy.
      agent: false,
      signal,
    });
    request.on("response", resolve);
    request.on("error", reject);
    request.end();
  });
}

async function readCapped(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(response.headers["content-encoding"] ?? "").toLowerCase();
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip") stream = response.pipe(createGunzip());
  else if (encoding === "deflate") stream = response.pipe(createInflate());
  else if (encoding === "br") stream = response.pipe(createBrotliDecompress());
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const data = chunk as Buffer;
    if (size + data.length > maxBytes) {
      chunks.push(data.subarray(0, maxBytes - size));
      // The cap bounds decompressed bytes too, so a small compressed bomb stops here.
      response.destroy();
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(data);
    size += data.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function explain(error: unknown, url: URL, timeout: AbortSignal, timeoutMs: number): Error {
  if (error instanceof EgressRefusal) return error;
  if (timeout.aborted) return new Error(`fetching ${url.href} took longer than ${timeoutMs} ms`);
  const name = (error as Error).name;
  if (name === "AbortError") return new Error(`fetching ${url.href} was aborted`);
  return new Error(`fetching ${url.href} failed: ${(error as Error).message}`, { cause: error });
}
