import { ProtocolRefusal } from "./byte-reader.js";
import { fieldValues, type HeaderField, printable, type RequestHead } from "./http-head.js";
import { type BodyFraming, requestFraming } from "./message-body.js";
import type { ProxyBinding, SecretUseRequest } from "./proxy-context.js";

/** A request that passed the checks, as it goes upstream. */
export interface AdmittedRequest {
  method: string;
  target: string;
  /** The target's path without the query, for the audit and path rules. */
  path: string;
  headers: HeaderField[];
  framing: BodyFraming;
  /** The bindings whose secret was put in their header (none when the request carried no placeholder). */
  injected: ProxyBinding[];
  /** Whether the client waits for `100 Continue` before sending the body. */
  expectsContinue: boolean;
  /** Whether the client asked to close the connection after this exchange. */
  close: boolean;
}

// Connection-level fields are the proxy's business on each side; the upstream gets the proxy's own.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
  "transfer-encoding",
  "content-length",
  "expect",
]);

export const SECRET_TOKEN = "{secret}";

/**
 * Checks one request inside an intercepted tunnel to `host` and rewrites its fields: the placeholder becomes the
 * secret only in the header its binding declares, on a method and path the binding allows; a placeholder
 * anywhere else (the target, another field) refuses the whole request, since the proxy cannot know what the
 * upstream would do with it. `all` is every binding of the cell, so another host's placeholder is caught too.
 */
export function admitRequest(
  head: RequestHead,
  host: string,
  all: readonly ProxyBinding[],
  rateLimit: (use: SecretUseRequest) => string | undefined,
): AdmittedRequest {
  if (head.version !== "HTTP/1.1")
    throw new ProtocolRefusal(`${head.version} inside a tunnel; only HTTP/1.1`, 505);
  if (head.method === "CONNECT" || fieldValues(head.headers, "upgrade").length > 0)
    throw new ProtocolRefusal("CONNECT and protocol upgrades are not proxied inside a tunnel", 405);
  if (!head.target.startsWith("/"))
    throw new ProtocolRefusal(`target ${printable(head.target)} is not a path`);
  const hosts = fieldValues(head.headers, "host");
  const sent = hosts[0]?.toLowerCase();
  if (hosts.length !== 1 || (sent !== host && sent !== `${host}:443`))
    throw new ProtocolRefusal(`Host ${printable(hosts.join(", "))} is not the tunnel's host ${host}`, 421);
  const framing = requestFraming(head.headers);
  for (const binding of all)
    if (head.target.includes(binding.placeholder))
      throw new ProtocolRefusal(
        `a placeholder in the request target; it is replaced only in ${binding.header}`,
        403,
      );
  const path = head.target.replace(/[?#].*$/s, "");
  const injected: ProxyBinding[] = [];
  const headers: HeaderField[] = [];
  const dropped = connectionListed(head.headers);
  for (const field of head.headers) {
    const name = field.name.toLowerCase();
    const carried = all.filter((binding) => field.value.includes(binding.placeholder));
    const binding = carried[0];
    if (binding === undefined) {
      if (!HOP_BY_HOP.has(name) && !dropped.has(name) && name !== "accept-encoding") headers.push(field);
      continue;
    }
    if (carried.length > 1 || binding.host.toLowerCase() !== host || binding.header.toLowerCase() !== name)
      throw new ProtocolRefusal(
        `a placeholder in field ${field.name}, which is not where its secret is bound`,
        403,
      );
    if (injected.includes(binding))
      throw new ProtocolRefusal(`field ${field.name} carries the placeholder twice`, 403);
    checkScope(binding, head.method, path);
    const limited = rateLimit({ binding, method: head.method, path });
    if (limited !== undefined) throw new ProtocolRefusal(limited, 429);
    injected.push(binding);
    headers.push({ name: field.name, value: binding.format.split(SECRET_TOKEN).join(binding.secret) });
  }
  // The scrubber reads plain bytes only; a compressed body could carry the secret past it.
  headers.push({ name: "Accept-Encoding", value: "identity" });
  if (framing.kind === "length") headers.push({ name: "Content-Length", value: String(framing.length) });
  if (framing.kind === "chunked") headers.push({ name: "Transfer-Encoding", value: "chunked" });
  const expect = fieldValues(head.headers, "expect").map((value) => value.toLowerCase());
  if (expect.some((value) => value !== "100-continue"))
    throw new ProtocolRefusal("an Expect other than 100-continue", 417);
  return {
    method: head.method,
    target: head.target,
    path,
    headers,
    framing,
    injected,
    expectsContinue: expect.length > 0,
    close: fieldValues(head.headers, "connection").some((value) => /(^|,)\s*close\s*(,|$)/i.test(value)),
  };
}

/** Field names a Connection header lists are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionListed(headers: readonly HeaderField[]): Set<string> {
  const names = fieldValues(headers, "connection").flatMap((value) => value.split(","));
  return new Set(names.map((name) => name.trim().toLowerCase()).filter((name) => name !== ""));
}

function checkScope(binding: ProxyBinding, method: string, path: string): void {
  if (binding.methods && !binding.methods.some((allowed) => allowed.toUpperCase() === method))
    throw new ProtocolRefusal(`secret ${binding.secretName} is not bound for ${method}`, 403);
  if (!binding.paths) return;
  // Dot segments and encoded separators are read differently by different servers: a path rule could be dodged.
  if (/(^|\/)\.\.?(\/|$)|%2e|%2f|%5c|\\/i.test(path))
    throw new ProtocolRefusal(`path ${printable(path)} has dot segments or encoded separators`, 403);
  // A prefix matches whole segments: `/repos` allows `/repos/x`, not `/repos-admin`.
  const allowed = binding.paths.some(
    (rule) => path === rule || path.startsWith(rule.endsWith("/") ? rule : `${rule}/`),
  );
  if (!allowed)
    throw new ProtocolRefusal(`secret ${binding.secretName} is not bound for path ${printable(path)}`, 403);
}
