import type Database from "better-sqlite3";
import {
  type SecretBindingBody,
  secretBindingBodySchema,
  secretHostSchema,
  secretNameSchema,
} from "../../contracts/index.js";
import { InvalidInputError, NotFoundError } from "../../core/index.js";
import { type AuditSink, checkField } from "./secret-store.js";

/**
 * Where a secret may be sent: the exact host (on 443), the one header it goes into and how it is written there,
 * optionally only with these methods and under these path prefixes.
 */
export interface SecretBinding {
  secretName: string;
  host: string;
  header: string;
  /** Contains `{secret}` once: `Bearer {secret}`. */
  format: string;
  methods?: string[];
  paths?: string[];
}

/** What a caller asks for, checked here like the HTTP body (the CLI's flags, the routes' parsed body). */
export interface SecretBindingInput {
  host: string;
  header?: string;
  format?: string;
  methods?: string[];
  paths?: string[];
}

interface BindingRow {
  secret_name: string;
  host: string;
  header: string;
  format: string;
  methods: string | null;
  paths: string | null;
}

/** The bindings users made themselves (a skill's own declarations come from its approved SKILL.md). */
export class SecretBindings {
  private readonly now: () => Date;
  private readonly audit: AuditSink;

  constructor(
    private readonly db: Database.Database,
    options: { audit?: AuditSink; now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.audit = options.audit ?? (() => {});
  }

  /**
   * Binds `secretName` to a host, replacing that secret's earlier binding to the same host. The secret need not
   * be set yet: the binding is then reported as missing its secret. Fields are checked like the HTTP body.
   */
  bind(userId: string, secretName: string, input: SecretBindingInput, by: string): SecretBinding {
    checkField(secretNameSchema, secretName, "name");
    const body = checkBody(input);
    if (!this.db.prepare("SELECT 1 FROM warden_users WHERE id = ?").get(userId))
      throw new NotFoundError("user", userId);
    this.db
      .prepare(
        `INSERT INTO warden_secret_bindings (user_id, secret_name, host, header, format, methods, paths, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, secret_name, host) DO UPDATE SET header = excluded.header,
           format = excluded.format, methods = excluded.methods, paths = excluded.paths`,
      )
      .run(
        userId,
        secretName,
        body.host,
        body.header,
        body.format,
        body.methods ? JSON.stringify(body.methods) : null,
        body.paths ? JSON.stringify(body.paths) : null,
        this.now().toISOString(),
      );
    const binding: SecretBinding = {
      secretName,
      host: body.host,
      header: body.header,
      format: body.format,
      ...(body.methods ? { methods: body.methods } : {}),
      ...(body.paths ? { paths: body.paths } : {}),
    };
    this.audit({ userId, actor: by, action: "secret.bound", detail: { ...binding } });
    return binding;
  }

  /** Removes the binding of `secretName` to `host`; false when there was none. */
  unbind(userId: string, secretName: string, host: string, by: string): boolean {
    checkField(secretNameSchema, secretName, "name");
    const exact = checkField(secretHostSchema, host, "host");
    const { changes } = this.db
      .prepare("DELETE FROM warden_secret_bindings WHERE user_id = ? AND secret_name = ? AND host = ?")
      .run(userId, secretName, exact);
    if (changes > 0)
      this.audit({ userId, actor: by, action: "secret.unbound", detail: { secretName, host: exact } });
    return changes > 0;
  }

  /** The user's bindings, by secret then host. */
  list(userId: string): SecretBinding[] {
    const rows = this.db
      .prepare(
        `SELECT secret_name, host, header, format, methods, paths FROM warden_secret_bindings
         WHERE user_id = ? ORDER BY secret_name, host`,
      )
      .all(userId) as BindingRow[];
    return rows.map((r) => ({
      secretName: r.secret_name,
      host: r.host,
      header: r.header,
      format: r.format,
      ...(r.methods ? { methods: JSON.parse(r.methods) as string[] } : {}),
      ...(r.paths ? { paths: JSON.parse(r.paths) as string[] } : {}),
    }));
  }
}

function checkBody(input: SecretBindingInput): SecretBindingBody {
  const result = secretBindingBodySchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new InvalidInputError(issue?.path.join(".") || "binding", issue?.message ?? "is invalid");
}
