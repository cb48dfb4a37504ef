import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A real CalDAV server for the calendar tools' tests: Debian's Radicale on a free 127.0.0.1 port, with its own
// config, a plain htpasswd file and its storage in a temporary folder. It serves HTTPS under a certificate made
// here for CALDAV_HOST, because the warden dials services over HTTPS only; tests map that name to 127.0.0.1.

export const RADICALE_BIN = "/usr/bin/radicale";
/** The name the warden dials; the certificate is issued for it. */
export const CALDAV_HOST = "caldav.example.test";

/** Why the calendar tests cannot run here, or undefined when they can. */
export const radicaleMissing: string | undefined = existsSync(RADICALE_BIN)
  ? undefined
  : `${RADICALE_BIN} is not installed (Debian package radicale); the CalDAV tests are skipped`;

export interface Radicale {
  /** https://CALDAV_HOST:<port>/ */
  url: string;
  port: number;
  /** The server certificate, to trust beside the system roots. */
  certPem: string;
  /** Its key, for a second server a test stands up under the same name. */
  keyPem: string;
  /** Creates a calendar collection for a user (MKCALENDAR), named `slug` and shown as `displayName`. */
  makeCalendar(user: string, password: string, slug: string, displayName: string): Promise<void>;
  /** Every byte Radicale stored, for tests that look for what must never be written. */
  storedText(): Promise<string>;
  stop(): Promise<void>;
}

export async function startRadicale(users: Record<string, string>): Promise<Radicale> {
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-radicale-"));
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "2",
      "-subj",
      `/CN=${CALDAV_HOST}`,
      "-addext",
      `subjectAltName=DNS:${CALDAV_HOST}`,
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  await writeFile(
    join(dir, "users"),
    Object.entries(users)
      .map(([u, p]) => `${u}:${p}\n`)
      .join(""),
  );
  const port = await freePort();
  await writeFile(
    join(dir, "config"),
    [
      "[server]",
      `hosts = 127.0.0.1:${port}`,
      "ssl = True",
      `certificate = ${cert}`,
      `key = ${key}`,
      "[auth]",
      "type = htpasswd",
      "delay = 0",
      `htpasswd_filename = ${join(dir, "users")}`,
      "htpasswd_encryption = plain",
      "[rights]",
      "type = owner_only",
      "[storage]",
      `filesystem_folder = ${join(dir, "collections")}`,
      "[web]",
      "type = none",
      "[logging]",
      "level = warning",
      "",
    ].join("\n"),
  );
  const child = spawn(RADICALE_BIN, ["--config", join(dir, "config")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const certPem = await readFile(cert, "utf8");
  const keyPem = await readFile(key, "utf8");
  const call = (method: string, path: string, auth?: string, body?: string) =>
    httpsCall(port, certPem, method, path, auth, body);
  await waitUntilServing(
    child,
    () => call("OPTIONS", "/"),
    () => stderr,
  );
  return {
    url: `https://${CALDAV_HOST}:${port}/`,
    port,
    certPem,
    keyPem,
    async makeCalendar(user, password, slug, displayName) {
      const body =
        '<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">' +
        `<D:set><D:prop><D:displayname>${displayName}</D:displayname>` +
        '<C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>' +
        "</D:prop></D:set></C:mkcalendar>";
      const status = await call("MKCALENDAR", `/${user}/${slug}/`, `${user}:${password}`, body);
      if (status !== 201) throw new Error(`MKCALENDAR /${user}/${slug}/ answered ${status}`);
    },
    async storedText() {
      return execFileSync(
        "sh",
        ["-c", `cat $(find "${join(dir, "collections")}" -type f) 2>/dev/null || true`],
        {
          encoding: "utf8",
        },
      );
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Waits for the first answer (Radicale takes a moment to start); fails at once if it exits. */
async function waitUntilServing(child: ChildProcess, probe: () => Promise<number>, stderr: () => string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`radicale exited with ${child.exitCode}: ${stderr()}`);
    if ((await probe().catch(() => 0)) > 0) return;
    if (Date.now() > deadline) throw new Error(`radicale did not answer within 30 s: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function httpsCall(port: number, ca: string, method: string, path: string, auth?: string, body?: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        servername: CALDAV_HOST,
        method,
        path,
        ca,
        headers: {
          ...(auth ? { authorization: `Basic ${Buffer.from(auth).toString("base64")}` } : {}),
          ...(body ? { "content-type": "application/xml; charset=utf-8" } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
