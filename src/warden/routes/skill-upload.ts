import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { FastifyRequest } from "fastify";
import { SKILL_UPLOAD_MAX_BYTES, SKILL_UPLOAD_TYPES } from "../../contracts/index.js";
import { HttpError } from "../../http/index.js";

// A user's skill upload waiting for approval: one archive in a host-owned folder of theirs, replaced by the next
// upload and removed once installed. It keeps the archive's file name, which names a flat archive's skill folder.

const PART = ".part";

function tooLarge(bytes: number): HttpError {
  return new HttpError(
    "payload_too_large",
    `body: a skill archive is at most ${SKILL_UPLOAD_MAX_BYTES / (1024 * 1024)} MiB (${SKILL_UPLOAD_MAX_BYTES} bytes); this one has ${bytes}`,
    { field: "body", details: { field: "body", limit_bytes: SKILL_UPLOAD_MAX_BYTES } },
  );
}

/**
 * Writes an uploaded archive into `dir` as it arrives, never holding more than a chunk in memory and refusing
 * it past the cap whatever its Content-Length said; it replaces whatever was staged there before. Without a file
 * name the archive is called upload.tar.gz or upload.tar, as its first bytes say.
 */
export async function receiveSkillArchive(
  request: FastifyRequest,
  dir: string,
  filename: string | undefined,
): Promise<{ file: string; bytes: number }> {
  const body = request.bodyStream;
  if (!body)
    throw new HttpError(
      "unsupported_media_type",
      `body: must be a skill archive (.tar.gz, .tgz or .tar) sent as ${SKILL_UPLOAD_TYPES.join(", ")}`,
      { field: "body" },
    );
  const declared = Number(request.headers["content-length"]);
  if (declared > SKILL_UPLOAD_MAX_BYTES) {
    body.resume(); // drained, so a client still sending reads the refusal
    throw tooLarge(declared);
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const aside = join(dir, `${randomBytes(6).toString("hex")}${PART}`);
  let bytes = 0;
  let gzip = false;
  // Past the cap the rest is read and dropped rather than the connection cut, so the client gets the refusal.
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (bytes === 0) gzip = chunk[0] === 0x1f && chunk[1] === 0x8b;
      bytes += chunk.length;
      done(null, bytes > SKILL_UPLOAD_MAX_BYTES ? undefined : chunk);
    },
  });
  try {
    await pipeline(body, cap, createWriteStream(aside, { flags: "wx", mode: 0o600 }));
    if (bytes > SKILL_UPLOAD_MAX_BYTES) throw tooLarge(bytes);
    if (bytes === 0)
      throw new HttpError("bad_request", "body: is empty; send the skill's archive", { field: "body" });
    await discardStaged(dir, aside);
    const file = join(dir, filename ?? (gzip ? "upload.tar.gz" : "upload.tar"));
    await rename(aside, file);
    return { file, bytes };
  } catch (error) {
    await rm(aside, { force: true });
    throw error;
  }
}

/** The archive staged in `dir`, if any. */
export async function stagedArchive(dir: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const staged = names.find((n) => !n.endsWith(PART));
  return staged === undefined ? undefined : join(dir, staged);
}

/** Removes what is staged in `dir`, except `keep` (an upload still arriving). */
export async function discardStaged(dir: string, keep?: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[]))
    if (join(dir, name) !== keep && !name.endsWith(PART)) await rm(join(dir, name), { force: true });
}
