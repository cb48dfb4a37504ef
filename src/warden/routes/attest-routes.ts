import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { loadOrCreateHostKey, verifyEvidence } from "../../attest/index.js";
import {
  attestScopeQuerySchema,
  certificateDetailSchema,
  certificateListQuerySchema,
  certifiedTurnListSchema,
  pathSafeId,
  uuid,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import { evidenceDirOf, listCertifiedOrders, listCertifiedTurns, runEvidenceDirOf } from "../attest/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";
import { commandAccess } from "./command-access.js";

const scopeQuery = attestScopeQuerySchema;
const listQuery = certificateListQuerySchema;
const jobParams = z.object({ job_id: uuid });

/** GET /api/attest/runs/{run_id}/certificates: the run's index lines, each with its certificate and proof. */
const runCertificatesSchema = z.object({
  run_id: z.string(),
  certificates: z.array(
    z.object({
      job_id: z.string(),
      run_id: z.string(),
      order_id: z.string(),
      commit_sha: z.string(),
      timestamp: z.string(),
      certificate: z.unknown(),
      proof: z.unknown(),
    }),
  ),
  /** Null while no order of the run is certified. */
  verify: z
    .object({
      ok: z.boolean(),
      checks: z.array(z.looseObject({ check: z.string(), status: z.string(), reason: z.string() })),
    })
    .nullable(),
});

/**
 * The certificates of a user's chat turns (provenance, seed 002): the host's public key to check them with, the
 * list, and one certificate with its proof and a verification of it against the user's evidence folder. A user
 * sees their own; an admin whoever they name with ?user=.
 */
export function attestRoutes(ctx: Pick<WardenContext, "home" | "command">) {
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
    defineRoute({
      method: "GET",
      url: "/api/attest/runs/:run_id/certificates",
      summary:
        "A command run's order certificates, newest first, each with its proof, and `ironclaw verify` run on the run's evidence folder",
      tag: "attest",
      access: "user",
      params: z.object({ run_id: pathSafeId }),
      response: runCertificatesSchema,
      handler: async ({ auth, params }) => {
        // The run's owner or an admin; anyone else is told the run is unknown, as command's own routes do.
        await commandAccess(ctx).run(auth, params.run_id);
        const dir = runEvidenceDirOf(ctx.home, params.run_id);
        const read = (part: string, jobId: string) =>
          readFile(join(dir, part, `${jobId}.json`), "utf8").then((text) => JSON.parse(text) as unknown);
        const certificates = await Promise.all(
          (await listCertifiedOrders(dir)).map(async (entry) => ({
            ...entry,
            certificate: await read("certificates", entry.job_id),
            proof: await read("proofs", entry.job_id).catch(() => null),
          })),
        );
        if (certificates.length === 0) return { run_id: params.run_id, certificates, verify: null };
        const report = verifyEvidence(dir);
        const checks = [...report.certificates.flatMap((c) => c.checks), ...report.chain];
        return { run_id: params.run_id, certificates, verify: { ok: report.ok, checks } };
      },
    }),
  ];
}
