import type { IronclawdConfig } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import { createGuardedFetch, type EgressDial } from "../../egress/index.js";
import type { AuditEntry } from "../audit-store.js";
import { CALDAV_PASSWORD_SECRET, createCaldavRunner } from "./caldav-runner.js";
import { createGithubRunner, GITHUB_TOKEN_SECRET } from "./github-runner.js";
import { createIntegrationDesk, type IntegrationDesk } from "./integration-desk.js";
import type { IntegrationRunner } from "./integration-runner.js";
import { createMailRunner, MAIL_PASSWORD_SECRET, type MailSends } from "./mail-runner.js";

/** A response larger than this is refused: the tools keep a page of compact results, never megabytes. */
const RESPONSE_CAP_BYTES = 8 * 1024 * 1024;

export interface HostIntegrationsOptions {
  config: IronclawdConfig;
  /** A user's secret by name (GITHUB_TOKEN…), or undefined when they have not set it. */
  secret: (userId: string, name: string) => string | undefined;
  /** Tests: the host names mapped to local servers and their CA (see EgressDial). */
  dial?: EgressDial;
  audit: (entry: AuditEntry) => void;
  logger: Logger;
  /** Runners the warden makes of its own services (settings), served beside the configured integrations. */
  runners?: readonly IntegrationRunner[];
}

/**
 * The integrations this host runs, from ironclawd.toml: each calls out through the egress module's checks
 * (`[egress] allow_private` decides whether private addresses may be dialled, as for the browser).
 */
export function createHostIntegrations(
  options: HostIntegrationsOptions,
): IntegrationDesk & { mail: MailSends } {
  const { github, calendar, mail } = options.config.integrations;
  const mailRunner = createMailRunner({
    config:
      mail.imap_host === undefined
        ? undefined
        : { ...mail, imap_host: mail.imap_host, smtp_host: mail.smtp_host ?? mail.imap_host },
    password: (userId) => options.secret(userId, MAIL_PASSWORD_SECRET),
    dial: options.dial,
    allowPrivate: options.config.egress.allow_private,
  });
  const guarded = createGuardedFetch({
    ...(options.dial ? { dial: options.dial } : {}),
    allowPrivate: options.config.egress.allow_private,
    timeoutMs: github.timeout_ms,
    maxBytes: RESPONSE_CAP_BYTES,
  });
  const desk = createIntegrationDesk({
    runners: [
      createGithubRunner({
        baseUrl: github.base_url,
        token: (userId) => options.secret(userId, GITHUB_TOKEN_SECRET),
        fetch: guarded,
      }),
      createCaldavRunner({
        url: calendar.url,
        username: calendar.username,
        password: (userId) => options.secret(userId, CALDAV_PASSWORD_SECRET),
        fetch: createGuardedFetch({
          ...(options.dial ? { dial: options.dial } : {}),
          allowPrivate: options.config.egress.allow_private,
          timeoutMs: calendar.timeout_ms,
          maxBytes: RESPONSE_CAP_BYTES,
        }),
      }),
      mailRunner,
      ...(options.runners ?? []),
    ],
    audit: options.audit,
    logger: options.logger,
  });
  return { ...desk, mail: mailRunner };
}
