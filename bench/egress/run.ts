// Egress proxy benchmark: `node --import tsx bench/egress/run.ts [rounds]` (default 300).
// What intercepting a bound host costs a cell's request: the same local HTTPS upstream reached through the
// warden's proxy twice in the same run, once as a bound host (TLS terminated with the cell CA's leaf, the request
// parsed, checked, the placeholder swapped for the secret, re-serialised, the response scrubbed and re-chunked)
// and once as a blind tunnel (bytes copied). Per request on a kept-alive tunnel, for a small and a 256 KiB
// answer, and per new tunnel (CONNECT + TLS handshake + one request). The ratio is interception ÷ tunnel.
import { once } from "node:events";
import { Agent, type AgentOptions, request } from "node:https";
import { type AddressInfo, createServer, connect as tcpConnect } from "node:net";
import { createSecureContext, connect as tlsConnect } from "node:tls";
import { createLogger } from "../../src/core/index.js";
import { createCellCa, handleProxyConnection, type ProxyBinding } from "../../src/egress/index.js";
import { formatTable, summarise, timeRounds } from "../agent/timing.js";

const ROUNDS = Number(process.argv[2] ?? 300);
const BOUND = "api.example.test";
const TUNNELLED = "plain.example.test";
const SECRET = "sk-bench-0123456789abcdef";
const PLACEHOLDER = "ironclaw-ph-YmVuY2gtcGxhY2Vob2xkZXItdGhhdC1pcy1sb25nLWVub3VnaA";
const LARGE = Buffer.alloc(256 * 1024, "x");
const SMALL = Buffer.alloc(1024, "y");

const upstreamCa = createCellCa();
const cellCa = createCellCa();
const contexts = new Map(
  [BOUND, TUNNELLED].map((name) => {
    const leaf = upstreamCa.leafFor(name);
    return [name, createSecureContext({ key: leaf.keyPem, cert: leaf.certPem })];
  }),
);
const { createServer: createHttpsServer } = await import("node:https");
const upstream = createHttpsServer(
  { SNICallback: (name, done) => done(null, contexts.get(name)) },
  (req, res) => {
    req.resume();
    req.on("end", () => {
      const body = req.url === "/large" ? LARGE : SMALL;
      res.writeHead(200, { "content-type": "text/plain", "content-length": body.length }).end(body);
    });
  },
);
upstream.listen(0, "127.0.0.1");
await once(upstream, "listening");

const binding: ProxyBinding = {
  host: BOUND,
  port: 443,
  header: "Authorization",
  format: "Bearer {secret}",
  placeholder: PLACEHOLDER,
  secret: SECRET,
  secretName: "BENCH_TOKEN",
};
let audited = 0;
const proxy = createServer(
  (socket) =>
    void handleProxyConnection(socket, {
      userId: "bench",
      cellId: "bench",
      ca: cellCa,
      bindings: [binding],
      allowTunnel: (host) => host === TUNNELLED,
      resolve: async () => ["127.0.0.1"],
      allowPrivate: true,
      extraCa: [upstreamCa.certPem],
      portMap: { 443: (upstream.address() as AddressInfo).port },
      audit: () => {
        audited++;
      },
      logger: createLogger("bench-egress", { level: "silent" }),
      rateLimit: () => undefined,
    }),
);
proxy.listen(0, "127.0.0.1");
await once(proxy, "listening");
const proxyPort = (proxy.address() as AddressInfo).port;

/** An https.Agent whose connections are CONNECT tunnels through the proxy, as a cell's client would open them. */
class TunnelAgent extends Agent {
  constructor(
    private readonly host: string,
    options: AgentOptions,
  ) {
    super(options);
  }
  override createConnection(
    _options: unknown,
    done: (error: Error | null, socket?: unknown) => void,
  ): undefined {
    const socket = tcpConnect({ host: "127.0.0.1", port: proxyPort });
    socket.write(`CONNECT ${this.host}:443 HTTP/1.1\r\nHost: ${this.host}:443\r\n\r\n`);
    socket.once("data", (reply: Buffer) => {
      if (!reply.toString("latin1").startsWith("HTTP/1.1 200"))
        return done(new Error(reply.toString("latin1")));
      const tls = tlsConnect({ socket, servername: this.host, ca: [cellCa.certPem, upstreamCa.certPem] });
      tls.once("secureConnect", () => done(null, tls));
      tls.once("error", done);
    });
    return undefined;
  }
}

function get(agent: Agent, host: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host, path, agent, headers: { authorization: `Bearer ${PLACEHOLDER}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${host}${path} answered ${res.statusCode}`));
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
    req.end();
  });
}

const kept = (host: string) => new TunnelAgent(host, { keepAlive: true, maxSockets: 1 });
const keptBound = kept(BOUND);
const keptTunnel = kept(TUNNELLED);
const fresh = (host: string) => () => get(new TunnelAgent(host, { keepAlive: false }), host, "/small");

const cases: Array<[string, () => Promise<void>, () => Promise<void>, number]> = [
  [
    "1 KiB answer, kept-alive tunnel",
    () => get(keptBound, BOUND, "/small"),
    () => get(keptTunnel, TUNNELLED, "/small"),
    ROUNDS,
  ],
  [
    "256 KiB answer, kept-alive tunnel",
    () => get(keptBound, BOUND, "/large"),
    () => get(keptTunnel, TUNNELLED, "/large"),
    ROUNDS,
  ],
  ["new tunnel + 1 KiB answer", fresh(BOUND), fresh(TUNNELLED), Math.max(20, Math.floor(ROUNDS / 5))],
];
const rows: string[][] = [];
for (const [name, intercepted, tunnelled, rounds] of cases) {
  const [a = [], b = []] = await timeRounds(rounds, [intercepted, tunnelled]);
  const i = summarise(a);
  const t = summarise(b);
  rows.push([
    name,
    String(rounds),
    i.p50.toFixed(2),
    i.p99.toFixed(2),
    t.p50.toFixed(2),
    t.p99.toFixed(2),
    `${(i.p50 / t.p50).toFixed(2)}×`,
    `+${(i.p50 - t.p50).toFixed(2)}`,
  ]);
}
console.log(
  formatTable(
    [
      "request",
      "rounds",
      "intercept p50 ms",
      "p99",
      "blind tunnel p50 ms",
      "p99",
      "ratio p50",
      "overhead ms",
    ],
    rows,
  ),
);
console.log(`${audited} audit entries written during the run`);
keptBound.destroy();
keptTunnel.destroy();
proxy.close();
upstream.close();
