import type { Logger } from "../../core/index.js";
import type { CellCa } from "./cell-ca.js";

/**
 * A secret bound to a host for one cell: the proxy puts `format` (with `{secret}` replaced by the value) in
 * `header` of a request to `host`:`port` whose `header` carries `placeholder`, and nowhere else.
 */
export interface ProxyBinding {
  /** Exact host name, compared without case. */
  host: string;
  port: 443;
  header: string;
  /** The header's value, `{secret}` standing for the secret, e.g. `Bearer {secret}`. */
  format: string;
  /** Allowed methods (any case); absent: all. */
  methods?: string[];
  /** Allowed path prefixes, matched by whole segments (`/repos/`); absent: all. Queries are not matched. */
  paths?: string[];
  /** What the cell holds instead of the secret. */
  placeholder: string;
  /** The secret's value; it never leaves the warden except in `header` to `host`. */
  secret: string;
  /** The name audited, never the value. */
  secretName: string;
  skill?: string;
}

/** A request about to carry a secret, as the rate limit sees it (path without the query). */
export interface SecretUseRequest {
  binding: ProxyBinding;
  method: string;
  path: string;
}

/** One decision of the proxy, as the audit log keeps it: names and sizes, never a secret's value. */
export interface ProxyAuditEntry {
  userId: string;
  cellId: string;
  /**
   * intercept: one request to a bound host, answered; tunnel: a blind tunnel opened (tunnel-closed: it ended,
   * with its byte counts); refused: the request or connection went no further, `reason` says why.
   */
  decision: "intercept" | "tunnel" | "tunnel-closed" | "refused";
  host: string;
  port: number;
  secretName?: string;
  skill?: string;
  /** Whether the secret was put in the request. */
  injected?: boolean;
  method?: string;
  /** Path without the query string (a query may carry someone's token). */
  path?: string;
  /** The upstream's status, or the status the proxy answered with. */
  status?: number;
  reason?: string;
  bytesUp?: number;
  bytesDown?: number;
}

export interface ProxyLimits {
  /** Largest request or response head (start line + fields). */
  maxHeadBytes: number;
  /** How long the cell may take to send the CONNECT head, and each later request head. */
  headTimeoutMs: number;
  /** How long the proxy waits for the upstream's TCP + TLS connection. */
  connectTimeoutMs: number;
  /** How long an intercepted upstream may stay silent (mid-answer or kept alive) before it is closed. */
  upstreamIdleMs: number;
}

export const DEFAULT_PROXY_LIMITS: ProxyLimits = {
  maxHeadBytes: 64 * 1024,
  headTimeoutMs: 30_000,
  connectTimeoutMs: 15_000,
  upstreamIdleMs: 120_000,
};

/** What the warden hands the proxy for one cell's connection. */
export interface ProxyContext {
  userId: string;
  cellId: string;
  /** The cell's CA: intercepted hosts are shown a leaf it signs. */
  ca: CellCa;
  bindings: readonly ProxyBinding[];
  /** Whether a blind tunnel to a host that is not bound may be opened (the host egress policy). */
  allowTunnel(host: string, port: number): boolean;
  /** Every address of `host`; called once per upstream connection, and the connection uses what it returned. */
  resolve(host: string): Promise<string[]>;
  /** Whether private, loopback, link-local and this host's own addresses may be dialled (tests, lab setups). */
  allowPrivate: boolean;
  /** Upstream ports dialled elsewhere: a test serves a bound host's 443 on an ephemeral port. */
  portMap?: Readonly<Record<number, number>>;
  /** Certificates trusted for upstreams besides the system roots (a test CA). */
  extraCa?: string[];
  audit(entry: ProxyAuditEntry): void;
  logger: Logger;
  /** Why this use of the secret is refused now (a per-secret rate limit), or undefined to allow it. */
  rateLimit(use: SecretUseRequest): string | undefined;
  limits?: Partial<ProxyLimits>;
}
