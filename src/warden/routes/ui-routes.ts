import { existsSync } from "node:fs";
import { lstat, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { PACKAGE_ROOT } from "../../cells/index.js";
import { fail } from "../../contracts/index.js";

export interface UiRoutesOptions {
  /** Where the UI is mounted, e.g. "/ui". */
  path: string;
  /** The folder served; by default ui/dist (the built app) when it has an index.html. */
  root?: string;
  /** Where ui/dist is looked for when `root` is not given (tests). */
  packageRoot?: string;
}

// The pages run no inline code and load nothing from elsewhere: an injected <script> or onclick does nothing.
export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Files whose name carries their content hash never change under that name: the browser keeps them a year. */
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";
const HASHED_NAME = /\.[0-9a-f]{8,}\.[a-z0-9]+$/;

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

/** ui/dist when the app has been built (`npm run build`), else undefined. */
export function defaultUiRoot(packageRoot = PACKAGE_ROOT): string | undefined {
  const built = join(packageRoot, "ui", "dist");
  return existsSync(join(built, "index.html")) ? built : undefined;
}

// What a checkout that was never built shows at /ui: no script, so it works under the CSP as it is.
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>IronClaw: the web UI is not built</title></head>
<body><main><h1>The web UI is not built</h1>
<p>This warden runs from a checkout whose UI has not been built yet. Run <code>npm run build</code>
(or <code>npm start</code>, which builds first) and reload this page.</p>
<p>The API works without it: see <a href="/api/openapi.json">/api/openapi.json</a>.</p></main></body></html>
`;

/**
 * The browser UI as static files: `<path>` redirects to `<path>/`, which is index.html; `<path>/<name>` and
 * `<path>/assets/<name>` are regular files directly in the folder or its assets/ folder, else a 404 envelope.
 * Content-hashed assets are cached for a year (immutable); everything else says no-cache, so the browser
 * revalidates index.html and never runs a stale app after an upgrade.
 */
export async function uiRoutes(app: FastifyInstance, options: UiRoutesOptions): Promise<void> {
  const base = options.path.replace(/\/+$/, "");
  const root = options.root ?? defaultUiRoot(options.packageRoot);

  const headers = (reply: FastifyReply) =>
    reply
      .header("content-security-policy", UI_CONTENT_SECURITY_POLICY)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer");

  const send = async (reply: FastifyReply, folder: string, name: string, shown: string) => {
    headers(reply).header("cache-control", "no-cache");
    if (!root) {
      if (shown !== "index.html")
        return reply.code(404).send(fail("not_found", `no UI file ${base}/${shown}`));
      return reply.code(503).type("text/html; charset=utf-8").send(NOT_BUILT_PAGE);
    }
    const body =
      FILE_NAME.test(name) && (await isRealFolder(join(root, folder)))
        ? await readRegularFile(join(root, folder, name))
        : undefined;
    if (!body) return reply.code(404).send(fail("not_found", `no UI file ${base}/${shown}`));
    if (folder === "assets" && HASHED_NAME.test(name)) reply.header("cache-control", IMMUTABLE_CACHE);
    return reply
      .code(200)
      .type(CONTENT_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream")
      .send(body);
  };

  if (base !== "") app.get(base, async (_request, reply) => reply.redirect(`${base}/`, 302));
  app.get(`${base}/`, async (_request, reply) => send(reply, "", "index.html", "index.html"));
  app.get<{ Params: { file: string } }>(`${base}/:file`, async (request, reply) =>
    send(reply, "", request.params.file, request.params.file),
  );
  app.get<{ Params: { file: string } }>(`${base}/assets/:file`, async (request, reply) =>
    send(reply, "assets", request.params.file, `assets/${request.params.file}`),
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

/** A folder itself, not a link to one somewhere else. */
async function isRealFolder(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}
