import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type { CellHandle } from "../../cells/index.js";
import { type HelloEgress, hostRefusal, type IronclawdConfig } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import {
  type CellCa,
  createCellCa,
  handleProxyConnection,
  makeCellCa,
  type ProxyAuditEntry,
  type ProxyContext,
  systemResolve,
} from "../../egress/index.js";
import type { AuditEntry } from "../audit-store.js";
import type { WardenSecrets } from "../secrets/index.js";
import { serveCellEgress } from "./cell-egress.js";

/**
 * FOR TESTS (and a lab's private mirror), never needed in production: a bound host's real name mapped to a
 * local address and port, and the local server's CA trusted besides the system roots, so a test reaches the
 * interception path under the real host name.
 */
export interface ProxyTestDial {
  /** Host name → the address it resolves to. */
  hosts?: Readonly<Record<string, string>>;
  /** Upstream port → the port actually dialled (a test serves "443" on an ephemeral port). */
  ports?: Readonly<Record<number, number>>;
  /** PEM certificates trusted for upstreams besides the system roots. */
  extraCa?: readonly string[];
}

export interface CellProxiesOptions {
  egress: IronclawdConfig["egress"];
  /** The users' secrets: each cell's placeholders and bindings, the per-secret limit, forgetting a stopped cell. */
  secrets?: Pick<WardenSecrets, "cellEgressPlan" | "cellStopped" | "rateLimitFor">;
  audit: (entry: AuditEntry) => void;
  logger: Logger;
  dial?: ProxyTestDial;
  /** The proxy engine; handleProxyConnection unless a test of the plumbing passes another. */
  engine?: (client: Duplex, ctx: ProxyContext) => Promise<void>;
}

interface CellProxy {
  cellId: string;
  ca: CellCa;
  hello: HelloEgress;
}

/**
 * Each cell's HTTPS proxy, warden side: when the cell starts, a CA of its own and its egress plan (placeholders
 * for its env, bindings with values for the proxy); every connection a tool in it opens goes to the egress proxy
 * engine with a context built from `[egress]`. The plan is made once per cell start; a stopped cell's streams are
 * closed and its placeholders forgotten.
 */
export class CellProxies {
  private readonly cells = new WeakMap<CellHandle, CellProxy>();

  constructor(private readonly options: CellProxiesOptions) {}

  /** Starts the cell's proxy (once per cell) and returns what its Hello carries; undefined when it is off. */
  async start(userId: string, cell: CellHandle): Promise<HelloEgress | undefined> {
    if (!this.options.egress.proxy) return undefined;
    const known = this.cells.get(cell);
    if (known) return known.hello;
    const cellId = `${userId}-${randomUUID()}`;
    const plan = this.options.secrets?.cellEgressPlan(userId, cellId) ?? { env: {}, bindings: [] };
    // A CA's RSA key takes 0.5–2 s of CPU: made only for a cell with a host to intercept, and off the event
    // loop, so other users' turns go on meanwhile.
    const ca = plan.bindings.length > 0 ? await makeCellCa() : lazyCellCa();
    const again = this.cells.get(cell);
    if (again) return again.hello;
    const hello: HelloEgress = { env: plan.env, ...(plan.bindings.length > 0 ? { ca_pem: ca.certPem } : {}) };
    const proxy: CellProxy = { cellId, ca, hello };
    this.cells.set(cell, proxy);
    const context = this.context(userId, cellId, ca, plan.bindings);
    const engine = this.options.engine ?? handleProxyConnection;
    const stop = serveCellEgress(cell, {
      serve: (client) => engine(client, context),
      logger: this.options.logger.child({ user: userId, cell: cellId }),
    });
    void cell.exited.then(() => {
      stop();
      this.options.secrets?.cellStopped(cellId);
    });
    return proxy.hello;
  }

  /** What a later Hello to a running cell carries (the same CA and placeholders), if its proxy is on. */
  hello(cell: CellHandle): HelloEgress | undefined {
    return this.cells.get(cell)?.hello;
  }

  private context(
    userId: string,
    cellId: string,
    ca: CellCa,
    bindings: ProxyContext["bindings"],
  ): ProxyContext {
    const { egress, dial } = this.options;
    // The browser's policy decides which hosts may be tunnelled: the same allow and deny lists as a page fetch.
    const policy = {
      egress: egress.policy,
      allowHosts: egress.allow_hosts,
      denyHosts: egress.deny_hosts,
      allowPrivate: egress.allow_private,
    };
    return {
      userId,
      cellId,
      ca,
      bindings,
      allowTunnel: (host, port) => port === 443 && hostRefusal(host, policy) === undefined,
      resolve: async (host) => {
        const mapped = dial?.hosts?.[host.toLowerCase()];
        return mapped ? [mapped] : systemResolve(host);
      },
      allowPrivate: egress.allow_private,
      ...(dial?.ports ? { portMap: dial.ports } : {}),
      ...(dial?.extraCa ? { extraCa: [...dial.extraCa] } : {}),
      audit: (entry) => this.options.audit(auditEntry(entry)),
      logger: this.options.logger.child({ user: userId, cell: cellId }),
      rateLimit: this.options.secrets?.rateLimitFor(userId, cellId) ?? (() => undefined),
    };
  }
}

/** A cell's CA made on first use: a cell without bound hosts never intercepts, so never needs one. */
function lazyCellCa(): CellCa {
  let ca: CellCa | undefined;
  const made = () => {
    ca ??= createCellCa();
    return ca;
  };
  return {
    get certPem() {
      return made().certPem;
    },
    leafFor: (host) => made().leafFor(host),
  };
}

/** The proxy's decision as an audit row of the cell's user: names and sizes, never a secret's value. */
function auditEntry(entry: ProxyAuditEntry): AuditEntry {
  const { userId, decision, ...detail } = entry;
  return { userId, actor: `cell:${userId}`, action: `egress.proxy.${decision}`, detail };
}
