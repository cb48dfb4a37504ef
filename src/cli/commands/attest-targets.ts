import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError, IronclawError, ironclawHome } from "../../core/index.js";
import { findSessionTurns, runEvidenceDirOf, type SessionTurns } from "../../warden/index.js";
import type { CliIo } from "../command.js";
import { kindAt, userBrainPlace } from "../user-brain.js";

export const TARGET_KINDS = ["user", "run", "session"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export type ExportTarget =
  | { kind: "user"; user: string }
  | { kind: "run"; runId: string; dir: string }
  | { kind: "session"; turns: SessionTurns };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * What `attest export <name>` names: a user (a folder under users/), a command run (its order certificates under
 * attest/run-evidence/<run_id>/) or a chat session (a certified turn of some user names it). A name that is
 * several of these must be told apart with --as; a name that is none is refused, saying what it could have been.
 */
export async function resolveExportTarget(
  io: CliIo,
  name: string,
  as: TargetKind | undefined,
): Promise<ExportTarget> {
  if (!NAME.test(name))
    throw new InvalidInputError("target", "must be a user, run id or session id: letters, digits, - and _");
  const home = ironclawHome(io.env);
  const found: ExportTarget[] = [];
  const userDir = name.length <= 64 ? userBrainPlace(io, name).userDir : undefined;
  if ((as ?? "user") === "user" && userDir !== undefined && (await kindAt(userDir)) === "dir")
    found.push({ kind: "user", user: name });
  const runDir = runEvidenceDirOf(home, name);
  if ((as ?? "run") === "run" && (await kindAt(runDir)) === "dir")
    found.push({ kind: "run", runId: name, dir: runDir });
  const turns = (as ?? "session") === "session" ? await findSessionTurns(home, name) : undefined;
  if (turns) found.push({ kind: "session", turns });
  const [only, other] = found;
  if (only !== undefined && other === undefined) return only;
  if (only !== undefined)
    throw new InvalidInputError(
      "target",
      `${name} is a ${found.map((t) => t.kind).join(" and a ")}: say which with --as ${found.map((t) => t.kind).join("|")}`,
    );
  throw new IronclawError(
    "not_found",
    `${name} is ${as ? `no ${as}` : "neither a user, a run nor a session"} on ${home}: a user has a folder ` +
      `under users/, a run has order certificates under attest/run-evidence/<run_id>/, a session has ` +
      "certified chat turns (see `ironclaw user list`, `ironclaw run list`, GET /api/attest/certificates)",
  );
}

/** Copies a run's evidence folder whole (its index file too, which verify passes over); returns its certificates. */
export async function copyRunEvidence(runDir: string, to: string): Promise<number> {
  await mkdir(to, { recursive: true });
  // Not following links: a folder someone else wrote into is copied as files, never as what a link points at.
  await cp(runDir, to, { recursive: true, force: true, dereference: false, verbatimSymlinks: true });
  const names = await readdir(join(runDir, "certificates")).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith(".json")).length;
}
