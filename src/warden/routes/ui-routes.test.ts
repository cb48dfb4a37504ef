import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyInstance } from "fastify";
import { parseHTML } from "linkedom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../cells/index.js";
import { defaultUiRoot, UI_CONTENT_SECURITY_POLICY, uiRoutes } from "./ui-routes.js";

const BASIC = join(PACKAGE_ROOT, "ui", "basic");
const SECRET = "the-parent-folder-secret";

describe("the UI routes", () => {
  let scratch: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    // root/ is served; root/../secret.txt and root/link → ../secret.txt must never be.
    scratch = mkdtempSync(join(tmpdir(), "ironclaw-ui-"));
    const root = join(scratch, "root");
    mkdirSync(join(root, "assets"), { recursive: true });
    writeFileSync(join(root, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(join(root, "app.js"), "export {};\n");
    writeFileSync(join(root, "app.css"), "body {}\n");
    writeFileSync(join(root, ".env"), SECRET);
    writeFileSync(join(scratch, "secret.txt"), SECRET);
    symlinkSync(join(scratch, "secret.txt"), join(root, "link.txt"));
    app = Fastify();
    await app.register(async (child) => uiRoutes(child, { path: "/ui", root }));
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const get = (url: string) => app.inject({ method: "GET", url });

  it("serves index.html at <path>/ with the CSP and the other safety headers", async () => {
    const reply = await get("/ui/");
    expect(reply.statusCode).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(reply.body).toContain("<title>t</title>");
    expect(reply.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
    expect(UI_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
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

  it("serves scripts and styles by name with their content types", async () => {
    const script = await get("/ui/app.js");
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers["content-security-policy"]).toBe(UI_CONTENT_SECURITY_POLICY);
    const style = await get("/ui/app.css");
    expect(style.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect((await get("/ui/index.html")).headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  it("answers an unknown file, a folder, a hidden file and a link out of the folder with a 404 envelope", async () => {
    for (const url of ["/ui/nope.js", "/ui/assets", "/ui/.env", "/ui/link.txt"]) {
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
      "/ui/..%2F..%2Fetc%2Fpasswd",
    ]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.body, url).not.toContain(SECRET);
      // The route itself got the decoded name (with its separator) and refused it: the router did not miss it.
      expect(reply.json().error.message, url).toMatch(/^no UI file \/ui\/\.\.[/\\]/);
    }
    // Plain dot segments are resolved before routing, so they never reach the route at all.
    for (const url of ["/ui/..", "/ui/%2e%2e", "/ui/../secret.txt"]) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(404);
      expect(reply.body, url).not.toContain(SECRET);
    }
  });
});

describe("the default UI folder", () => {
  it("is ui/dist once a built app is there, else ui/basic", () => {
    const packageRoot = mkdtempSync(join(tmpdir(), "ironclaw-ui-root-"));
    try {
      expect(defaultUiRoot(packageRoot)).toBe(join(packageRoot, "ui", "basic"));
      mkdirSync(join(packageRoot, "ui", "dist"), { recursive: true });
      expect(defaultUiRoot(packageRoot)).toBe(join(packageRoot, "ui", "basic"));
      writeFileSync(join(packageRoot, "ui", "dist", "index.html"), "<!doctype html>");
      expect(defaultUiRoot(packageRoot)).toBe(join(packageRoot, "ui", "dist"));
    } finally {
      rmSync(packageRoot, { recursive: true, force: true });
    }
  });
});

describe("the basic UI under its CSP", () => {
  const html = readFileSync(join(BASIC, "index.html"), "utf8");
  const scripts = readdirSync(BASIC).filter((name) => name.endsWith(".js"));

  it("has no inline script, event handler attribute or style attribute in index.html", () => {
    const { document } = parseHTML(html);
    const tags = [...document.querySelectorAll("script")];
    expect(tags.length).toBeGreaterThan(0); // the probe found the page's script tag
    for (const tag of tags) {
      expect(tag.getAttribute("src")).toBeTruthy();
      expect(tag.textContent?.trim()).toBe("");
    }
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i); // nothing from another origin
  });

  it("references and imports only files that are in the folder", () => {
    const { document } = parseHTML(html);
    const referenced = [...document.querySelectorAll("script[src], link[rel=stylesheet]")].map(
      (node) => node.getAttribute("src") ?? node.getAttribute("href") ?? "",
    );
    const imported = scripts.flatMap((name) =>
      [...readFileSync(join(BASIC, name), "utf8").matchAll(/from "\.\/([^"]+)"/g)].map((m) => m[1] ?? ""),
    );
    expect(imported.length).toBeGreaterThan(0);
    const files = readdirSync(BASIC);
    for (const name of [...referenced, ...imported]) expect(files, name).toContain(name);
  });

  it("never turns server text into HTML in its scripts", () => {
    expect(scripts).toContain("app.js");
    for (const name of scripts) {
      const source = readFileSync(join(BASIC, name), "utf8");
      expect(source, name).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
      );
      expect(source, name).not.toMatch(/setAttribute\(\s*"(style|on[a-z]+)"/);
    }
  });
});

describe("the basic UI's markdown", () => {
  type LinkedDocument = ReturnType<typeof parseHTML>["document"];
  type Fragment = ReturnType<LinkedDocument["createDocumentFragment"]>;
  let render: (text: string) => ReturnType<LinkedDocument["createElement"]>;

  beforeAll(async () => {
    const url = pathToFileURL(join(BASIC, "markdown.js")).href;
    const { renderMarkdown } = (await import(url)) as {
      renderMarkdown(text: string, doc: LinkedDocument): Fragment;
    };
    const { document } = parseHTML("<!doctype html><html><body></body></html>");
    render = (text) => {
      const host = document.createElement("div");
      host.append(renderMarkdown(text, document));
      return host;
    };
  });

  it("keeps markup the agent writes as text", () => {
    const host = render('<img src=x onerror="alert(1)"> **<script>alert(2)</script>**');
    expect(host.querySelector("img")).toBeNull();
    expect(host.querySelector("script")).toBeNull();
    expect(host.querySelector("strong")?.textContent).toBe("<script>alert(2)</script>");
    expect(host.textContent).toContain('<img src=x onerror="alert(1)">');
  });

  it("renders paragraphs, inline code, bold, lists, headings and fenced code", () => {
    const host = render(
      "# Plan\n\nUse `ls` **now**.\nthen rest\n\n- one\n- two\n\n1. first\n\n```sh\necho <b>\n```",
    );
    expect(host.querySelector("h3")?.textContent).toBe("Plan");
    expect(host.querySelector("p code")?.textContent).toBe("ls");
    expect(host.querySelector("p strong")?.textContent).toBe("now");
    expect(host.querySelectorAll("p br")).toHaveLength(1);
    expect([...host.querySelectorAll("ul li")].map((li) => li.textContent)).toEqual(["one", "two"]);
    expect(host.querySelector("ol li")?.textContent).toBe("first");
    const code = host.querySelector("pre code");
    expect(code?.textContent).toBe("echo <b>");
    expect(code?.getAttribute("data-language")).toBe("sh");
  });

  it("links only http(s) addresses, opening them without a referrer", () => {
    const host = render("[docs](https://example.org/a) and [bad](javascript:alert(1))");
    const links = [...host.querySelectorAll("a")];
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute("href")).toBe("https://example.org/a");
    expect(links[0]?.getAttribute("rel")).toBe("noopener noreferrer");
    expect(host.textContent).toContain("[bad](javascript:alert(1))");
  });

  it("shows an unclosed fence, as mid-stream, as code to the end", () => {
    const host = render("Here:\n```\nline 1\nline 2");
    expect(host.querySelector("pre code")?.textContent).toBe("line 1\nline 2");
  });
});
