import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { type ConnectionOptions, createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import { dialAddress, type EgressDial } from "./dial-address.js";
import { EgressRefusal } from "./egress-refusal.js";

export interface GuardedFetchOptions {
  dial?: EgressDial;
  /** Whether private, loopback and link-local addresses may be dialled (`[egress] allow_private`). */
  allowPrivate: boolean;
  /** How long one request may take, to the end of its response. */
  timeoutMs: number;
  /** The largest response body read; a longer one fails rather than filling the warden's memory. */
  maxBytes: number;
}

/**
 * A `fetch` for service clients the warden runs (Octokit's `request.fetch`): HTTPS only, the name resolved once
 * and every address checked before the connection (which goes to the checked address, so a name cannot pass the
 * check and then resolve to 127.0.0.1), certificates verified as the name, redirects never followed, a fresh
 * connection each time, and a capped body.
 */
export function createGuardedFetch(options: GuardedFetchOptions): typeof fetch {
  // Parsing the system roots into a context takes ~200 ms: once per fetch function, not once per request.
  const trust = createSecureContext({ ca: [...rootCertificates, ...(options.dial?.extraCa ?? [])] });
  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "https:")
      throw new EgressRefusal(`${url.origin} is not HTTPS; only HTTPS is dialled`);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const address = await dialAddress(host, options);
    const signal = AbortSignal.any([
      AbortSignal.timeout(options.timeoutMs),
      ...(init.signal ? [init.signal] : []),
    ]);
    return send(url, address, init, signal, options, trust);
  };
  return guarded as typeof fetch;
}

function send(
  url: URL,
  address: string,
  init: RequestInit,
  signal: AbortSignal,
  options: GuardedFetchOptions,
  trust: SecureContext,
): Promise<Response> {
  const headers = new Headers(init.headers);
  const body = typeof init.body === "string" ? Buffer.from(init.body) : undefined;
  if (init.body != null && body === undefined)
    return Promise.reject(new Error("the guarded fetch sends string bodies only"));
  if (body) headers.set("content-length", String(body.length));
  return new Promise<Response>((resolve, reject) => {
    const request = httpsRequest(
      url,
      {
        method: init.method ?? "GET",
        port: dialPort(url, options.dial),
        headers: Object.fromEntries(headers),
        // The connection goes to the address that was checked, whatever the resolver says now.
        lookup: (_name, opts, callback) => {
          const family = isIP(address);
          if ((opts as { all?: boolean }).all) callback(null, [{ address, family }]);
          else callback(null, address, family);
        },
        // https.request passes it on to tls.connect; its option type does not list it.
        ...({ secureContext: trust } satisfies ConnectionOptions),
        agent: false,
        signal,
      },
      (response) => {
        void readCapped(response, options.maxBytes).then((bytes) => {
          const out = new Headers();
          for (const [name, value] of Object.entries(response.headers))
            if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(", ") : value);
          const status = response.statusCode ?? 502;
          // A Response cannot carry a body with these statuses.
          const empty = status === 204 || status === 304 || (init.method ?? "GET") === "HEAD";
          resolve(
            new Response(empty ? null : new Uint8Array(bytes), {
              status,
              statusText: response.statusMessage ?? "",
              headers: out,
            }),
          );
        }, reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

function dialPort(url: URL, dial: EgressDial | undefined): number {
  const port = url.port === "" ? 443 : Number(url.port);
  return dial?.ports?.[port] ?? port;
}

async function readCapped(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(`the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
