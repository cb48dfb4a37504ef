import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { loadOrCreateHostKey, verifyEvidence } from "../../attest/index.js";
import {
  attestScopeQuerySchema,
  certificateDetailSchema,
  certificateListQuerySchema,
  certifiedTurnListSchema,
  uuid,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import { evidenceDirOf, listCertifiedTurns } from "../attest/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

const scopeQuery = attestScopeQuerySchema;
const listQuery = certificateListQuerySchema;
const jobParams = z.object({ job_id: uuid });

/**
 * The certificates of a user's chat turns (provenance, seed 002): the host's public key to check them with, the
 * list, and one certificate with its proof and a verification of it against the user's evidence folder. A user
 * sees their own; an admin whoever they name with ?user=.
 */
export function attestRoutes(ctx: Pick<WardenContext, "home">) {
  const whose = (auth: Auth, user: string | undefined) => (auth.admin && user ? user : auth.userId);
  return [
    defineRoute({
      method: "GET",
      url: "/api/attest/public-key",
      summary: "The host's Ed25519 public key (SPKI PEM) that signs every certificate, and its key id",
      tag: "attest",
      access: "user",
      response: z.object({ key_id: z.string(), public_key_pem: z.string() }),
      handler: async () => {
        const key = loadOrCreateHostKey(ctx.home);
        return { key_id: key.keyId, public_key_pem: key.publicKeyPem };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/attest/certificates",
      summary:
        "Certified chat turns, newest first: job id, session id, timestamp, the reply's conversation entry (seq) and the node it left; ?session= keeps one conversation's (paged by offset and limit)",
      tag: "attest",
      access: "user",
      query: listQuery,
      response: certifiedTurnListSchema,
      handler: async ({ auth, query }) => {
        const turns = await listCertifiedTurns(evidenceDirOf(ctx.home, whose(auth, query.user)));
        const all = query.session ? turns.filter((t) => t.session_id === query.session) : turns;
        const offset = query.offset ?? 0;
        return { total: all.length, certificates: all.slice(offset, offset + (query.limit ?? 50)) };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/attest/certificates/:job_id",
      summary: "One certificate with its proof and the four checks of `ironclaw verify` run on it",
      tag: "attest",
      access: "user",
      params: jobParams,
      query: scopeQuery,
      response: certificateDetailSchema,
      handler: async ({ auth, params, query }) => {
        const dir = evidenceDirOf(ctx.home, whose(auth, query.user));
        const file = join(dir, "certificates", `${params.job_id}.json`);
        const certificate = await readFile(file, "utf8").catch(() => undefined);
        if (certificate === undefined) throw new NotFoundError("job_id", params.job_id);
        const proof = await readFile(join(dir, "proofs", `${params.job_id}.json`), "utf8").catch(
          () => "null",
        );
        // One certificate inside its folder: checked against the folder's key, proof and node.
        const report = verifyEvidence(file);
        const checks = report.certificates.flatMap((c) => c.checks);
        return {
          certificate: JSON.parse(certificate),
          proof: JSON.parse(proof),
          verify: { ok: report.ok, checks },
        };
      },
    }),
  ];
}
