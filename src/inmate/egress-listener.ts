import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EgressStream, EgressStreams, type MessageBody } from "../channel/index.js";
import type { HelloEgress, ProtocolMessage } from "../contracts/cell/index.js";

/** Where a Debian-like system keeps its roots; a bwrap cell has no /etc, so Node's own roots stand in. */
const SYSTEM_ROOTS = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"];

/** The variables that point HTTP clients (curl, git, pip, node, requests) at the proxy and the trust bundle. */
const BUNDLE_VARS = [
  "SSL_CERT_FILE",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
] as const;
const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] as const;

/**
 * The cell's HTTPS proxy, inmate side: a listener on the cell's own loopback (the cell has no other network)
 * whose every connection becomes an egress stream to the warden, bytes piped both ways with back-pressure. It
 * parses nothing: what a tool sends is the warden's to judge. Started by the first Hello that carries `egress`;
 * a later one only refreshes the trust bundle and the placeholders.
 */
export class CellEgress {
  private readonly streams: EgressStreams;
  private server: Server | undefined;
  private env: Record<string, string> = {};
  private readonly sockets = new Set<Socket>();
  private bundleDir: string | undefined;

  constructor(send: (body: MessageBody) => void) {
    this.streams = new EgressStreams({ send });
  }

  /** Listens (once) and writes the trust bundle; a failure leaves egress off and says why on stderr. */
  async configure(egress: HelloEgress): Promise<void> {
    try {
      const port = await this.listen();
      this.bundleDir ??= mkdtempSync(join(tmpdir(), "ironclaw-egress-"));
      const bundle = writeTrustBundle(this.bundleDir, egress.ca_pem);
      const proxy = `http://127.0.0.1:${port}`;
      // The placeholders first: a variable of a skill's cannot take the proxy's or the bundle's name.
      this.env = {
        ...egress.env,
        ...Object.fromEntries(PROXY_VARS.map((name) => [name, proxy])),
        ...Object.fromEntries(BUNDLE_VARS.map((name) => [name, bundle])),
        NO_PROXY: "localhost,127.0.0.1",
        no_proxy: "localhost,127.0.0.1",
      };
    } catch (error) {
      process.stderr.write(`irowclaw: the HTTPS proxy is off: ${(error as Error).message}\n`);
    }
  }

  /** What the bash tool adds to its commands' environment now (empty until egress is on). */
  toolEnv(): Record<string, string> {
    return this.env;
  }

  /** Takes the warden's egress frames; false for every other message. */
  receive(message: ProtocolMessage): boolean {
    return this.streams.receive(message);
  }

  /** The port tools connect to, once listening. */
  get port(): number | undefined {
    const address = this.server?.address();
    return typeof address === "object" && address ? address.port : undefined;
  }

  close(): void {
    this.server?.close();
    this.streams.closeAll("the cell is stopping");
    for (const socket of this.sockets) socket.destroy();
  }

  private async listen(): Promise<number> {
    if (this.server) return this.port as number;
    const server = createServer({ allowHalfOpen: true }, (socket) => this.carry(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    server.on("error", (error) => process.stderr.write(`irowclaw: the HTTPS proxy: ${error.message}\n`));
    return this.port as number;
  }

  private carry(socket: Socket): void {
    const stream = this.streams.openStream();
    if (!stream) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on("error", () => {});
    socket.once("close", () => {
      this.sockets.delete(socket);
      stream.destroy();
    });
    stream.once("close", () => closeSocket(socket, stream));
    socket.pipe(stream);
    stream.pipe(socket);
  }
}

/** A stream the warden reset resets the tool's connection; one that ended in order lets the socket drain. */
function closeSocket(socket: Socket, stream: EgressStream): void {
  if (stream.closeReason !== undefined) socket.destroy();
}

/** The system's roots and the cell's CA, if any, in one PEM file of the cell's own (its /tmp is a private tmpfs). */
function writeTrustBundle(dir: string, caPem: string | undefined): string {
  // node:tls is loaded only here, not with the module: the runtime is loaded into a startup snapshot, whose
  // builder warns about tls on load, and that warning's colours read the environment the snapshot must not see.
  const tls = process.getBuiltinModule("node:tls") as typeof import("node:tls");
  const roots = readSystemRoots() ?? tls.rootCertificates.join("\n");
  const file = join(dir, "ca-bundle.pem");
  // Without a CA of the cell's own (no bound host) the bundle still holds the roots: the cell has no /etc.
  writeFileSync(file, `${roots.trimEnd()}\n${caPem ? `${caPem.trimEnd()}\n` : ""}`, { mode: 0o644 });
  return file;
}

function readSystemRoots(): string | undefined {
  for (const file of SYSTEM_ROOTS) {
    try {
      return readFileSync(file, "utf8");
    } catch {}
  }
  return undefined;
}
