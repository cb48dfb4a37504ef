import type { IntegrationName, IntegrationRequest, IntegrationResult } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import type { AuditEntry } from "../audit-store.js";
import type { IntegrationOutcome, IntegrationRunner } from "./integration-runner.js";

/** The answer to one IntegrationRequest: the fields of an IntegrationResult. */
export type IntegrationReply = Pick<IntegrationResult, "ok" | "data" | "error">;

/** The warden's integrations, keyed by name: which a user has, and one call for a cell's user. */
export interface IntegrationDesk {
  configured(userId: string): IntegrationName[];
  serve(userId: string, request: IntegrationRequest, signal: AbortSignal): Promise<IntegrationReply>;
}

export interface IntegrationDeskOptions {
  runners: readonly IntegrationRunner[];
  audit: (entry: AuditEntry) => void;
  logger: Logger;
}

/**
 * Serves the integration tools' requests. A request must be the cell's own user's; it runs with that user's
 * credential, which never leaves the warden; every call is audited with its integration, action, target and
 * the service's status — never the credential, never the arguments' text (an issue body may be private).
 */
export function createIntegrationDesk(options: IntegrationDeskOptions): IntegrationDesk {
  const byName = new Map(options.runners.map((r) => [r.name, r]));
  return {
    configured(userId) {
      return options.runners
        .filter((runner) => {
          try {
            return runner.configured(userId);
          } catch (error) {
            // A credential that cannot be read (a damaged secret) leaves the tools out; the operator sees why.
            options.logger.warn(
              { user: userId, integration: runner.name, error: (error as Error).message },
              "an integration's credential could not be read",
            );
            return false;
          }
        })
        .map((r) => r.name);
    },
    async serve(userId, request, signal) {
      const outcome = await run(userId, request, signal);
      options.audit({
        userId,
        actor: `cell:${userId}`,
        action: `integration.${request.integration}`,
        detail: {
          action: request.action,
          ...outcome.audit,
          outcome: outcome.ok ? "ok" : outcome.error.code,
        },
      });
      return outcome.ok ? { ok: true, data: outcome.data } : { ok: false, error: outcome.error };
    },
  };

  async function run(
    userId: string,
    request: IntegrationRequest,
    signal: AbortSignal,
  ): Promise<IntegrationOutcome> {
    if (request.user_id !== userId)
      return {
        ok: false,
        error: { code: "forbidden", message: `this cell belongs to ${userId}, not to ${request.user_id}` },
        audit: { claimed_user: request.user_id },
      };
    const runner = byName.get(request.integration);
    if (!runner)
      return {
        ok: false,
        error: { code: "not_configured", message: `${request.integration} is not offered on this host` },
        audit: {},
      };
    try {
      return await runner.run(userId, request.action, request.args, signal);
    } catch (error) {
      // Only the message: an error object of a client library may carry the request, headers and all.
      options.logger.error(
        {
          user: userId,
          integration: request.integration,
          action: request.action,
          error: (error as Error).message,
        },
        "an integration call failed",
      );
      return {
        ok: false,
        error: {
          code: "failed",
          message: `the warden could not complete ${request.integration} ${request.action}`,
        },
        audit: {},
      };
    }
  }
}
