import { rootCertificates } from "node:tls";
import { ImapFlow } from "imapflow";
import { dialAddress, type EgressDial } from "../../../egress/index.js";

/** `[integrations.mail]` as the runner uses it: where the user's mail is and how to log in. */
export interface MailServerConfig {
  imap_host: string;
  imap_port: number;
  smtp_host: string;
  smtp_port: number;
  /** `tls`: TLS from the first byte (465); `starttls`: upgraded before anything is sent (587). */
  smtp_security: "tls" | "starttls";
  /** The login name; `{user}` stands for the IronClaw user's id. */
  username: string;
  /** The From address; `{user}` likewise. Empty: the login name. */
  from: string;
  timeout_ms: number;
}

/** One user's way into their mail: the login, and how sockets leave the warden. */
export interface MailAccount {
  config: MailServerConfig;
  user: string;
  password: string;
  from: string;
  dial?: EgressDial | undefined;
  allowPrivate: boolean;
}

/** TLS for a connection made to a checked address: verified as the configured host, against the roots (+ tests' CA). */
export function tlsFor(account: MailAccount, host: string) {
  return {
    servername: host,
    rejectUnauthorized: true,
    minVersion: "TLSv1.2" as const,
    ca: [...rootCertificates, ...(account.dial?.extraCa ?? [])],
  };
}

/**
 * An IMAP session logged in as the user, over TLS from the first byte, to the address the egress checks chose.
 * The caller ends it with `logout()` (the runner does, whatever happened).
 */
export async function openImap(account: MailAccount): Promise<ImapFlow> {
  const { imap_host, imap_port, timeout_ms } = account.config;
  const address = await dialAddress(imap_host, { dial: account.dial, allowPrivate: account.allowPrivate });
  const client = new ImapFlow({
    host: address,
    port: imap_port,
    secure: true,
    servername: imap_host,
    tls: tlsFor(account, imap_host),
    auth: { user: account.user, pass: account.password },
    logger: false,
    emitLogs: false,
    disableAutoIdle: true,
    connectionTimeout: timeout_ms,
    greetingTimeout: timeout_ms,
    socketTimeout: timeout_ms,
  });
  // An error event without a listener would end the warden; the awaited calls report the same failure.
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** The mailbox marked as drafts (RFC 6154), or `Drafts`, created when the server has none. */
export async function draftsMailbox(client: ImapFlow): Promise<string> {
  return specialMailbox(client, "\\Drafts", "Drafts");
}

export async function sentMailbox(client: ImapFlow): Promise<string> {
  return specialMailbox(client, "\\Sent", "Sent");
}

async function specialMailbox(client: ImapFlow, use: string, fallback: string): Promise<string> {
  const boxes = await client.list();
  const marked = boxes.find((b) => b.specialUse === use) ?? boxes.find((b) => b.path === fallback);
  if (marked) return marked.path;
  await client.mailboxCreate(fallback);
  return fallback;
}
