import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configKeyPaths, undescribedKeys } from "./config-schema-tree.js";
import { parseTomlConfig } from "./toml-config.js";
import { missingTemplateKeys, renderTomlTemplate, templateKeyPaths } from "./toml-template.js";

const schema = z.strictObject({
  name: z.string().meta({ description: "Who this is.", examples: ["ada"] }),
  server: z
    .strictObject({
      port: z.number().default(7410).describe("The port."),
      url: z
        .string()
        .optional()
        .meta({ description: "Where it is reached.", examples: ["https://x.example"] }),
      tags: z.array(z.string()).default(["a", "b"]).describe("Labels."),
    })
    .prefault({})
    .describe("The server."),
  bot: z.strictObject({ token: z.string().meta({ examples: ["t"] }) }).optional(),
  hosts: z
    .record(z.string(), z.strictObject({ base_url: z.string().meta({ examples: ["http://h/v1"] }) }))
    .default({})
    .meta({ description: "Hosts by name.", examples: [{ local: { base_url: "http://127.0.0.1/v1" } }] }),
  prices: z
    .record(
      z.string(),
      z
        .record(z.string(), z.strictObject({ usd: z.number().meta({ examples: [1] }) }))
        .meta({ "x-key": '"<model>"' }),
    )
    .default({})
    .meta({ "x-key": "<provider>" }),
  secret: z.never().optional(),
});

describe("config template", () => {
  it("lists every key a reader can set, through optional tables and map entries, but not refused ones", () => {
    expect(configKeyPaths(schema)).toEqual([
      "name",
      "server.port",
      "server.url",
      "server.tags",
      "bot.token",
      "hosts.<name>.base_url",
      'prices.<provider>."<model>".usd',
    ]);
  });

  it("writes given values live and every other key commented at its default, or at an example marked so", () => {
    const text = renderTomlTemplate(schema, { header: "A test file.", values: { name: "ada" } });
    expect(text).toContain("# A test file.\n");
    expect(text).toContain('# Who this is.\nname = "ada"\n');
    expect(text).toContain("# The server.\n# [server]\n# The port.\n# port = 7410\n");
    expect(text).toContain('# url = "https://x.example"   # an example; unset by default\n');
    expect(text).toContain('# tags = ["a", "b"]\n');
    expect(text).toContain('# [bot]\n# token = "t"   # required\n');
    expect(text).toContain('# [hosts.<name>]\n# base_url = "http://h/v1"   # required\n');
    expect(text).toContain('# For example:\n# [hosts.local]\n# base_url = "http://127.0.0.1/v1"\n');
    expect(text).toContain('# [prices.<provider>."<model>"]\n# usd = 1   # required\n');
    expect(text).not.toContain("secret");
  });

  it("reads back as exactly the values given, with the schema's defaults", () => {
    const text = renderTomlTemplate(schema, {
      header: "x",
      values: { name: "ada", server: { port: 8000 }, hosts: { "a.b": { base_url: "http://a/v1" } } },
    });
    expect(parse(text)).toEqual({
      name: "ada",
      server: { port: 8000 },
      hosts: { "a.b": { base_url: "http://a/v1" } },
    });
    expect(parseTomlConfig(text, schema).server).toEqual({ port: 8000, tags: ["a", "b"] });
  });

  it("shows a default the reader applies, given by path, instead of an example", () => {
    const text = renderTomlTemplate(schema, {
      header: "x",
      values: { name: "a" },
      defaults: { "server.url": "http://d" },
    });
    expect(text).toContain('# url = "http://d"\n');
  });

  it("writes an array too long for one line one element a line", () => {
    const long = z.strictObject({
      words: z.array(z.string()).default(Array.from({ length: 20 }, (_, i) => `word${i}`)),
    });
    const text = renderTomlTemplate(long, { header: "x" });
    expect(text).toContain('# words = [\n#   "word0",\n');
    expect(text).toContain('#   "word19",\n# ]\n');
  });

  it("refuses a key it has nothing to show for, naming it", () => {
    const bare = z.strictObject({ t: z.strictObject({ k: z.string() }).optional() });
    expect(() => renderTomlTemplate(bare, { header: "x" })).toThrow(
      "t.k has no default and no example to show",
    );
  });

  it("names the keys a hand-written file leaves out, wherever they sit", () => {
    const text = [
      'name = "a"',
      "[server]",
      "# port = 1",
      '# [prices.openrouter."a/b"]',
      "# usd = 2",
      "# [hosts.local]",
      "base_url = 'x'",
    ].join("\n");
    expect(templateKeyPaths(text)).toEqual([
      "name",
      "server.port",
      'prices.openrouter."a/b".usd',
      "hosts.local.base_url",
    ]);
    expect(missingTemplateKeys(schema, text)).toEqual(["server.url", "server.tags", "bot.token"]);
  });

  it("does not count a key written under the wrong table", () => {
    expect(missingTemplateKeys(schema, "# port = 1\n")).toContain("server.port");
  });
});

describe("descriptions", () => {
  it("names the keys and tables a reader would see without a description", () => {
    expect(undescribedKeys(schema)).toEqual([
      "bot",
      "bot.token",
      "hosts.<name>.base_url",
      "prices",
      'prices.<provider>."<model>".usd',
    ]);
  });
});
