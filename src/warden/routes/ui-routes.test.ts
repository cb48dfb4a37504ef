import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { parseHTML } from "linkedom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultUiRoot, IMMUTABLE_CACHE, UI_CONTENT_SECURITY_POLICY, uiRoutes } from "./ui-routes.js";

const SECRET = "the-parent-folder-secret";
const HASHED = "index.0123abcdef.js";

describe("the UI routes", () => {
  let scratch: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    // root/ is served; root/../secret.txt and links out of root must never be.
    scratch = mkdtempSync(join(tmpdir(), "ironclaw-ui-"));
    const root = join(scratch, "root");
    mkdirSync(join(root, "assets"), { recursive: true });
    mkdirSync(join(scratch, "elsewhere"));
    writeFileSync(join(root, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(join(root, "favicon.ico"), "icon");
    writeFileSync(join(root, "assets", HASHED), "export {};\n");
    writeFileSync(join(root, "assets", "index.0123abcdef.css"), "body {}\n");
    writeFileSync(join(root, "assets", "notes.txt"), "not hashed\n");
    writeFileSync(join(root, ".env"), SECRET);
    writeFileSync(join(scratch, "secret.txt"), SECRET);
    writeFileSync(join(scratch, "elsewhere", "x.0123abcdef.js"), SECRET);
    symlinkSync(join(scratch, "secret.txt"), join(root, "link.txt"));
    symlinkSync(join(scratch, "secret.txt"), join(root, "assets", "link.0123abcdef.js"));
    app = Fastify();
    await app.register(async (child) => uiRoutes(child, { path: "/ui", root }));
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const get = (url: string) => app.inject({ method: "GET", url });

  it("serves index.html at <path>/ with the CSP, the other safety headers and no-cache", async () => {
    const reply = await get("/ui/");
    expect(reply.statusCode).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(reply.body).toContain("<title>t</title>");
    expect(reply.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
    expect(UI_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(UI_CONTENT_SECURITY_POLICY).toContain("style-src 'self';");
    expect(UI_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect(reply.headers["referrer-policy"]).toBe("no-referrer");
    expect(reply.headers["cache-control"]).toBe("no-cache");
  });

  it("redirects <path> to <path>/", async () => {
    const reply = await get("/ui");
    expect(reply.statusCode).toBe(302);
    expect(reply.headers.location).toBe("/ui/");
  });

  it("serves content-hashed assets for a year as immutable, with their content types", async () => {
    const script = await get(`/ui/assets/${HASHED}`);
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
    expect(IMMUTABLE_CACHE).toBe("public, max-age=31536000, immutable");
    expect(script.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
    const style = await get("/ui/assets/index.0123abcdef.css");
    expect(style.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(style.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
  });

  it("revalidates files whose name carries no hash", async () => {
    expect((await get("/ui/assets/notes.txt")).headers["cache-control"]).toBe("no-cache");
    expect((await get("/ui/favicon.ico")).headers["cache-control"]).toBe("no-cache");
  });

  it("answers an unknown file, a folder, a hidden file and a link out of the folder with a 404 envelope", async () => {
    for (const url of [
      "/ui/nope.js",
      "/ui/assets",
      "/ui/.env",
      "/ui/link.txt",
      "/ui/assets/link.0123abcdef.js",
    ]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.json(), url).toEqual({
        ok: false,
        data: null,
        error: { code: "not_found", message: expect.stringMatching(/^no UI file \/ui\//) },
      });
      expect(reply.body).not.toContain(SECRET);
    }
  });

  it("never serves a file outside the folder, however the name is encoded", async () => {
    // The probe is real: the file sits next to the served folder, where a naive join of the name would reach it.
    expect(readFileSync(join(scratch, "root", "..", "secret.txt"), "utf8")).toBe(SECRET);
    for (const url of [
      "/ui/..%2Fsecret.txt",
      "/ui/%2e%2e%2fsecret.txt",
      "/ui/..%5csecret.txt",
      "/ui/assets/..%2F..%2Fsecret.txt",
      "/ui/assets/..%2F..%2Felsewhere%2Fx.0123abcdef.js",
    ]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.body, url).not.toContain(SECRET);
      // The route itself got the decoded name (with its separator) and refused it: the router did not miss it.
      expect(reply.json().error.message, url).toMatch(/^no UI file \/ui\/(assets\/)?\.\.[/\\]/);
    }
    for (const url of ["/ui/..", "/ui/%2e%2e", "/ui/../secret.txt", "/ui/assets/../../secret.txt"]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.body, url).not.toContain(SECRET);
    }
  });

  it("does not follow an assets folder that is a link to somewhere else", async () => {
    const root = join(scratch, "linked");
    mkdirSync(root);
    writeFileSync(join(root, "index.html"), "<!doctype html>");
    symlinkSync(join(scratch, "elsewhere"), join(root, "assets"));
    const linked = Fastify();
    await linked.register(async (child) => uiRoutes(child, { path: "/ui", root }));
    // Positive control: through the link the file is there to be read.
    expect(readFileSync(join(root, "assets", "x.0123abcdef.js"), "utf8")).toBe(SECRET);
    const reply = await linked.inject({ method: "GET", url: "/ui/assets/x.0123abcdef.js" });
    expect(reply.statusCode).toBe(404);
    expect(reply.body).not.toContain(SECRET);
    await linked.close();
  });
});

describe("a checkout whose UI was never built", () => {
  let packageRoot: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    packageRoot = mkdtempSync(join(tmpdir(), "ironclaw-ui-root-"));
    app = Fastify();
    await app.register(async (child) => uiRoutes(child, { path: "/ui", packageRoot }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(packageRoot, { recursive: true, force: true });
  });

  it("answers /ui/ with a page that says to run npm run build, runs no script and keeps the CSP", async () => {
    const reply = await app.inject({ method: "GET", url: "/ui/" });
    expect(reply.statusCode).toBe(503);
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(reply.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
    const { document } = parseHTML(reply.body);
    expect(document.querySelector("h1")?.textContent).toBe("The web UI is not built");
    expect(document.body.textContent).toContain("npm run build");
    expect(document.querySelectorAll("script, style")).toHaveLength(0);
    expect((await app.inject({ method: "GET", url: "/ui/assets/index.0123abcdef.js" })).statusCode).toBe(404);
  });

  it("serves ui/dist once a built app is there", () => {
    expect(defaultUiRoot(packageRoot)).toBeUndefined();
    mkdirSync(join(packageRoot, "ui", "dist"), { recursive: true });
    expect(defaultUiRoot(packageRoot)).toBeUndefined();
    writeFileSync(join(packageRoot, "ui", "dist", "index.html"), "<!doctype html>");
    expect(defaultUiRoot(packageRoot)).toBe(join(packageRoot, "ui", "dist"));
  });
});
