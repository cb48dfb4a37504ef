import { execFile, spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ImapFlow } from "imapflow";
import type { IronclawdConfig } from "../../src/contracts/index.js";
import { createCellCa, type EgressDial } from "../../src/egress/index.js";

const run = promisify(execFile);

/**
 * A real mail host on loopback for the mail tools' tests: Postfix takes mail over SMTP (implicit TLS) for
 * `example.test` and hands it over LMTP to Dovecot, which serves the mailboxes over IMAP (implicit TLS), both
 * presenting the certificate given (a test CA's, for `mail.example.test`). Each start is a private instance (its
 * own config, queue, ports and maildirs under a temporary folder), so tests never touch the machine's own mail.
 */
export interface MailServers {
  host: "127.0.0.1";
  imapPort: number;
  smtpPort: number;
  domain: "example.test";
  /** A mailbox that exists, with its password. */
  user: string;
  password: string;
  stop(): Promise<void>;
}

const DOVECOT = "/usr/sbin/dovecot";
const POSTFIX = "/usr/sbin/postfix";
/** Postfix hands mail to Dovecot over LMTP, which Debian packages apart from IMAP. */
const DOVECOT_LMTP = "/usr/lib/dovecot/lmtp";

/** Why the real servers cannot run here, or undefined when they can (CI installs both, and runs as root). */
export function mailServersMissing(): string | undefined {
  if (!existsSync(DOVECOT)) return `${DOVECOT} is not installed (apt-get install dovecot-imapd)`;
  if (!existsSync(POSTFIX)) return `${POSTFIX} is not installed (apt-get install postfix)`;
  if (!existsSync(DOVECOT_LMTP)) return `${DOVECOT_LMTP} is not installed (apt-get install dovecot-lmtpd)`;
  if (userInfo().uid !== 0) return "Dovecot and Postfix instances of their own need root";
  return undefined;
}

export interface MailTls {
  certPem: string;
  keyPem: string;
}

export async function startMailServers(tls: MailTls): Promise<MailServers> {
  const missing = mailServersMissing();
  if (missing) throw new Error(missing);
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-mail-"));
  await chmod(dir, 0o755);
  await writeFile(join(dir, "cert.pem"), tls.certPem, { mode: 0o644 });
  await writeFile(join(dir, "key.pem"), tls.keyPem, { mode: 0o600 });
  const [imapPort, lmtpPort, smtpPort] = [await freePort(), await freePort(), await freePort()];
  const user = "ada@example.test";
  const password = "imap-pass-7c1e";
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  try {
    await startDovecot(dir, { imapPort, lmtpPort, user, password });
    stops.push(() => killPidFile(join(dir, "dovecot-run", "master.pid")));
    await startPostfix(dir, { smtpPort, lmtpPort });
    stops.push(() => daemon(POSTFIX, ["-c", join(dir, "postfix", "conf"), "stop"]));
    await Promise.all([listening(imapPort), listening(smtpPort)]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { host: "127.0.0.1", imapPort, smtpPort, domain: "example.test", user, password, stop };
}

async function startDovecot(
  dir: string,
  o: { imapPort: number; lmtpPort: number; user: string; password: string },
): Promise<void> {
  const mail = join(dir, "mail");
  await mkdir(mail);
  await mkdir(join(dir, "dovecot-state"));
  await chown(mail, 65534, 65534);
  // Read by Dovecot's auth process, which runs as its own user; a test password, no secret.
  await writeFile(join(dir, "users"), `${o.user}:{PLAIN}${o.password}\n`, { mode: 0o644 });
  const conf = `
base_dir = ${dir}/dovecot-run
state_dir = ${dir}/dovecot-state
log_path = ${dir}/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = required
ssl_cert = <${dir}/cert.pem
ssl_key = <${dir}/key.pem
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
default_login_user = dovenull
default_internal_user = dovecot
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=65534 gid=65534 home=${mail}/%n
}
service imap-login {
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${o.imapPort}
    ssl = yes
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${o.lmtpPort}
  }
}
protocol lmtp {
  postmaster_address = postmaster@example.test
}
`;
  await writeFile(join(dir, "dovecot.conf"), conf);
  await daemon(DOVECOT, ["-c", join(dir, "dovecot.conf")]);
}

async function startPostfix(dir: string, o: { smtpPort: number; lmtpPort: number }): Promise<void> {
  // Postfix runs its smtpd as the postfix user, which reads the key after dropping root: give it the key file.
  await chown(join(dir, "key.pem"), await uidOf("postfix"), -1);
  const root = join(dir, "postfix");
  const conf = join(root, "conf");
  await mkdir(conf, { recursive: true });
  await mkdir(join(root, "queue"));
  await mkdir(join(root, "data"));
  const postfixUser = await uidOf("postfix");
  await chown(join(root, "data"), postfixUser, -1);
  const main = `
compatibility_level = 3.6
queue_directory = ${root}/queue
data_directory = ${root}/data
mail_owner = postfix
myhostname = mail.example.test
mydomain = example.test
mydestination = example.test
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost =
smtputf8_enable = no
mailbox_transport = lmtp:inet:127.0.0.1:${o.lmtpPort}
local_recipient_maps =
alias_maps =
alias_database =
smtpd_tls_cert_file = ${dir}/cert.pem
smtpd_tls_key_file = ${dir}/key.pem
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
default_transport = error:mail for other domains is not sent from this test server
`;
  await writeFile(join(conf, "main.cf"), main);
  // The packaged master.cf, with smtpd on this instance's port and no service chrooted (a chroot would need its
  // own copy of the system's files under the queue folder).
  const master = (await readFile("/etc/postfix/master.cf", "utf8"))
    .split("\n")
    .map((line) => {
      if (/^smtp\s+inet\s/.test(line))
        return `127.0.0.1:${o.smtpPort} inet n - n - - smtpd -o smtpd_tls_wrappermode=yes -o smtpd_tls_security_level=encrypt`;
      return /^\S/.test(line) && !line.startsWith("#")
        ? line.replace(/^(\S+\s+\S+\s+\S+\s+\S+\s+)y(\s)/, "$1n$2")
        : line;
    })
    .join("\n");
  await writeFile(join(conf, "master.cf"), master);
  await daemon(POSTFIX, ["-c", conf, "start"]);
}

/**
 * Runs a command that leaves a daemon behind: its output goes to a file, not a pipe the daemon would hold open,
 * and a failure quotes it.
 */
async function daemon(command: string, args: string[]): Promise<void> {
  const log = join(tmpdir(), `ironclaw-daemon-${process.pid}-${Date.now()}.log`);
  const out = openSync(log, "w");
  try {
    const child = spawn(command, args, { stdio: ["ignore", out, out] });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0)
      throw new Error(
        `${command} ${args.join(" ")} exited with ${code}: ${(await readFile(log, "utf8")).trim().slice(0, 2000)}`,
      );
  } finally {
    closeSync(out);
    await rm(log, { force: true });
  }
}

async function uidOf(name: string): Promise<number> {
  const { stdout } = await run("id", ["-u", name]);
  return Number(stdout.trim());
}

/**
 * Ends the daemon whose pid the file holds and waits until it is gone (SIGKILL after 10 s): its processes still
 * writing their state while the folder is removed made that removal fail (ENOTEMPTY) on a loaded host.
 */
async function killPidFile(path: string): Promise<void> {
  const pid = Number((await readFile(path, "utf8")).trim());
  if (!(pid > 0)) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(pid, "SIGTERM");
  // Bounded: a zombie nobody reaps still answers signal 0.
  for (let waited = 0; alive() && waited < 15_000; waited += 50) {
    if (waited === 10_000) process.kill(pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Resolves once something accepts connections on the port; gives up after 20 s. */
async function listening(port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after 20 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The subjects in one of the test mailbox's folders, read over IMAP as a mail client would (the server's name and CA). */
export async function mailboxSubjects(
  servers: MailServers,
  tls: { servername: string; caPem: string },
  mailbox = "INBOX",
): Promise<string[]> {
  const client = new ImapFlow({
    host: servers.host,
    port: servers.imapPort,
    secure: true,
    servername: tls.servername,
    tls: { ca: [tls.caPem], servername: tls.servername },
    auth: { user: servers.user, pass: servers.password },
    logger: false,
  });
  await client.connect();
  try {
    await client.mailboxOpen(mailbox);
    const subjects: string[] = [];
    const status = await client.status(mailbox, { messages: true });
    if (status !== false && status.messages)
      for await (const m of client.fetch("1:*", { envelope: true })) subjects.push(m.envelope?.subject ?? "");
    return subjects;
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** The mail host's real-looking name, under which the warden reaches the local servers (its test CA's leaf). */
export const MAIL_HOST = "mail.example.test";

/**
 * Private mail servers under `MAIL_HOST` with a test CA, and what a warden needs to use them as a user's mail:
 * the name mapped to loopback with the CA trusted (`egressDial`), and `[integrations.mail]` pointing at them
 * (`configure`). `subjects` reads a folder of the test mailbox as a mail client would.
 */
export async function startMailHost() {
  const ca = createCellCa();
  const leaf = ca.leafFor(MAIL_HOST);
  const servers = await startMailServers({ certPem: leaf.certPem, keyPem: leaf.keyPem });
  const egressDial: EgressDial = { hosts: { [MAIL_HOST]: "127.0.0.1" }, extraCa: [ca.certPem] };
  const configure = (config: IronclawdConfig): IronclawdConfig => ({
    ...config,
    integrations: {
      ...config.integrations,
      mail: {
        ...config.integrations.mail,
        imap_host: MAIL_HOST,
        imap_port: servers.imapPort,
        smtp_host: MAIL_HOST,
        smtp_port: servers.smtpPort,
        username: servers.user,
        from: servers.user,
      },
    },
    egress: { ...config.egress, allow_private: true },
  });
  return {
    servers,
    egressDial,
    configure,
    subjects: (mailbox = "INBOX") =>
      mailboxSubjects(servers, { servername: MAIL_HOST, caPem: ca.certPem }, mailbox),
  };
}
