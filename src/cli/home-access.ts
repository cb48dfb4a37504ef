import { statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { ironclawHome } from "../core/index.js";

/**
 * One line saying what could not be opened and how to fix it, for a failure caused by file permissions
 * (EACCES, EPERM) anywhere in the error's cause chain; undefined for any other failure. The usual case is an
 * IRONCLAW_HOME that belongs to another user (a 0700 home made by root, run as a service user): a stack trace
 * there tells the operator nothing they can act on.
 */
export function explainAccessError(error: unknown, env: NodeJS.ProcessEnv): string | undefined {
  const denied = findDenied(error);
  if (!denied) return undefined;
  const what = denied.path
    ? `cannot ${denied.syscall ?? "open"} ${denied.path}: permission denied`
    : denied.message;
  const home = resolve(ironclawHome(env));
  const uid = process.getuid?.();
  if (!denied.path || !inside(home, resolve(denied.path)) || uid === undefined)
    return `${what}; run ironclaw as a user who may access it`;
  const owner = ownerOf(home);
  const whose = owner
    ? `IRONCLAW_HOME ${home} belongs to uid ${owner.uid} (mode ${owner.mode}) and ironclaw runs as uid ${uid}`
    : `IRONCLAW_HOME ${home} cannot be reached by uid ${uid}`;
  const fix = owner && owner.uid !== uid ? `run ironclaw as uid ${owner.uid}` : "give this user access to it";
  return `${what}. ${whose}: ${fix}, or set IRONCLAW_HOME to a directory uid ${uid} owns`;
}

function findDenied(error: unknown): NodeJS.ErrnoException | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") return e as NodeJS.ErrnoException;
  }
  return undefined;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function ownerOf(path: string): { uid: number; mode: string } | undefined {
  try {
    const info = statSync(path);
    return { uid: info.uid, mode: `0${(info.mode & 0o777).toString(8).padStart(3, "0")}` };
  } catch {
    return undefined;
  }
}
