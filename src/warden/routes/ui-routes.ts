import { existsSync } from "node:fs";
import { lstat, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { PACKAGE_ROOT } from "../../cells/index.js";
import { fail } from "../../contracts/index.js";

export interface UiRoutesOptions {
  /** Where the UI is mounted, e.g. "/ui". */
  path: string;
  /** The folder served; by default ui/dist (the built app) when it has an index.html, else ui/basic. */
  root?: string;
}

// The pages run no inline code and load nothing from elsewhere: an injected <script> or onclick does nothing.
export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
};

// One plain name: no separators, and no leading dot, which rules out ".", ".." and hidden files.
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export function defaultUiRoot(packageRoot = PACKAGE_ROOT): string {
  const built = join(packageRoot, "ui", "dist");
  return existsSync(join(built, "index.html")) ? built : join(packageRoot, "ui", "basic");
}

/**
 * The browser UI as static files from one folder: `<path>` redirects to `<path>/`, which is index.html, and
 * `<path>/<name>` is a regular file directly in the folder or a 404 envelope. The files are not content-hashed,
 * so every answer says no-cache (the browser revalidates; nothing stale after an upgrade).
 */
export async function uiRoutes(app: FastifyInstance, options: UiRoutesOptions): Promise<void> {
  const base = options.path.replace(/\/+$/, "");
  const root = options.root ?? defaultUiRoot();

  const send = async (reply: FastifyReply, name: string) => {
    reply
      .header("content-security-policy", UI_CONTENT_SECURITY_POLICY)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .header("cache-control", "no-cache");
    const body = FILE_NAME.test(name) ? await readRegularFile(join(root, name)) : undefined;
    if (!body) return reply.code(404).send(fail("not_found", `no UI file ${base}/${name}`));
    return reply
      .code(200)
      .type(CONTENT_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream")
      .send(body);
  };

  if (base !== "") app.get(base, async (_request, reply) => reply.redirect(`${base}/`, 302));
  app.get(`${base}/`, async (_request, reply) => send(reply, "index.html"));
  app.get<{ Params: { file: string } }>(`${base}/:file`, async (request, reply) =>
    send(reply, request.params.file),
  );
}

/** The file's bytes when it is a regular file (not a link, not a folder), else undefined. */
async function readRegularFile(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch {
    return undefined;
  }
}
