import { describe, expect, it } from "vitest";
import { ValidationError } from "../../core/index.js";
import { parseSkillMd } from "./skill-md.js";
import {
  skillAllowedTools,
  skillEgress,
  skillInstallSpecs,
  skillRequirements,
} from "./skill-requirements.js";

const skill = (frontmatter: string, body = "# Body\n") => `---\n${frontmatter}\n---\n${body}`;

/** The problems parseSkillMd reports, as `path: message` lines. */
function problems(text: string, folder = "x"): string[] {
  try {
    parseSkillMd(text, folder);
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

const EGRESS = (entry: string) =>
  skill(`name: x\ndescription: d\nmetadata: {"ironclaw": {"egress": [${entry}]}}`);

describe("parseSkillMd", () => {
  it("reads an AgentSkills skill: frontmatter, body and allowed tools", () => {
    const { frontmatter, body } = parseSkillMd(
      skill(
        "name: pdf-tools\ndescription: Work with PDFs.\nlicense: MIT\nallowed-tools: Bash(python3:*) Read",
      ),
      "pdf-tools",
    );
    expect(frontmatter.name).toBe("pdf-tools");
    expect(frontmatter.license).toBe("MIT");
    expect(body).toBe("# Body\n");
    expect(skillAllowedTools(frontmatter)).toEqual(["Bash(python3:*)", "Read"]);
    expect(skillRequirements(frontmatter)).toEqual({ env: [], bins: [], anyBins: [] });
  });

  it("loads an OpenClaw skill unchanged and reads its requirements, keeping keys it does not know", () => {
    const text = skill(
      [
        "name: notion",
        "description: Notion API for pages and databases.",
        "homepage: https://developers.notion.com",
        'metadata: {"openclaw": {"emoji": "📝", "primaryEnv": "NOTION_API_KEY", "os": ["darwin", "linux"],',
        '  "requires": {"env": ["NOTION_API_KEY"], "bins": ["curl"], "anyBins": ["jq", "python3"]},',
        '  "install": [{"id": "brew", "kind": "brew", "formula": "jq"}, {"kind": "download", "url": "https://x.example/a.tgz"}]}}',
      ].join("\n"),
    );
    const { frontmatter } = parseSkillMd(text, "notion");
    expect(skillRequirements(frontmatter)).toEqual({
      env: ["NOTION_API_KEY"],
      bins: ["curl"],
      anyBins: ["jq", "python3"],
      primaryEnv: "NOTION_API_KEY",
      os: ["darwin", "linux"],
    });
    expect((frontmatter as Record<string, unknown>).homepage).toBe("https://developers.notion.com");
    expect(skillInstallSpecs(frontmatter)).toEqual(["brew jq", "download https://x.example/a.tgz"]);
    expect(skillEgress(frontmatter)).toEqual([]);
  });

  it("reads egress declarations with their method and path limits", () => {
    const { frontmatter } = parseSkillMd(
      EGRESS(
        '{"host": "api.github.com", "secret": "GITHUB_TOKEN", "header": "Authorization", "format": "Bearer {secret}", "methods": ["GET"], "paths": ["/repos/"]}',
      ),
      "x",
    );
    expect(skillEgress(frontmatter)).toEqual([
      {
        host: "api.github.com",
        secret: "GITHUB_TOKEN",
        header: "Authorization",
        format: "Bearer {secret}",
        methods: ["GET"],
        paths: ["/repos/"],
      },
    ]);
  });

  it("refuses a name that differs from the folder name", () => {
    expect(problems(skill("name: weather\ndescription: d"), "wether")).toEqual([
      '$.name: must equal the skill\'s folder name ("wether")',
    ]);
  });

  it.each([
    ["a name with capitals", "name: Weather\ndescription: d", "$.name: must use only lowercase letters"],
    [
      "a name of 65 characters",
      `name: ${"a".repeat(65)}\ndescription: d`,
      "$.name: must be at most 64 characters",
    ],
    ["no name", "description: d", "$.name: is required"],
    ["no description", "name: x", "$.description: is required"],
    [
      "a long description",
      `name: x\ndescription: ${"d".repeat(1025)}`,
      "$.description: must be at most 1024",
    ],
    ["a blank description", 'name: x\ndescription: " "', "$.description: must not be blank"],
    ["a list as license", "name: x\ndescription: d\nlicense: [MIT]", "$.license: must be a string"],
    ["metadata as a string", "name: x\ndescription: d\nmetadata: yes", "$.metadata: must be a mapping"],
    [
      "a lowercase env name",
      'name: x\ndescription: d\nmetadata: {"openclaw": {"requires": {"env": ["key"]}}}',
      "$.metadata.openclaw.requires.env[0]: must name an environment variable",
    ],
    [
      "a bin with a path",
      'name: x\ndescription: d\nmetadata: {"openclaw": {"requires": {"bins": ["../sh"]}}}',
      "$.metadata.openclaw.requires.bins[0]: must be a program name without a path",
    ],
    [
      "anyBins not a list",
      'name: x\ndescription: d\nmetadata: {"openclaw": {"requires": {"anyBins": "jq"}}}',
      "$.metadata.openclaw.requires.anyBins: must be a list",
    ],
  ])("refuses %s, naming the field and the rule", (_what, frontmatter, expected) => {
    expect(problems(skill(frontmatter)).join("\n")).toContain(expected);
  });

  it.each([
    ["a wildcard host", '"host": "*.github.com"', "host: must be one exact lowercase host name"],
    ["a host with a port", '"host": "api.github.com:8443"', "host: must be one exact lowercase host name"],
    ["a secret in lowercase", '"secret": "token"', "secret: must name an environment variable"],
    ["the Host header", '"header": "Host"', "header: must not be a header that frames or routes"],
    ["a header with a colon", '"header": "X-Key:"', "header: must be an HTTP header name"],
    ["a format without {secret}", '"format": "Bearer"', "format: must contain {secret} exactly once"],
    ["a format with a newline", '"format": "{secret}\\r\\nX-Evil: 1"', "format: must be one line"],
    ["an unknown method", '"methods": ["CONNECT"]', "methods[0]: must be one of GET"],
    ["a path with a query", '"paths": ["/a?b=1"]', "paths[0]: must be a path prefix"],
  ])("refuses an egress declaration with %s", (_what, override, expected) => {
    const entry = {
      host: "api.github.com",
      secret: "GH_TOKEN",
      header: "Authorization",
      format: "{secret}",
      ...JSON.parse(`{${override}}`),
    };
    expect(problems(EGRESS(JSON.stringify(entry))).join("\n")).toContain(
      `$.metadata.ironclaw.egress[0].${expected}`,
    );
  });

  it("refuses a file without frontmatter, invalid YAML, or a frontmatter that is not a mapping", () => {
    expect(problems("# just markdown\n")).toEqual([
      "$: must start with a line --- opening the YAML frontmatter",
    ]);
    expect(problems("---\nname: x\n")).toEqual(["$: the YAML frontmatter has no closing --- line"]);
    expect(problems(skill("name: [x\ndescription: d"))[0]).toMatch(/^\$: the frontmatter is not valid YAML/);
    expect(problems(skill("- a\n- b"))).toEqual([
      "$: the frontmatter must be a YAML mapping (name: …, description: …)",
    ]);
  });

  it("accepts a byte-order mark and CRLF line ends", () => {
    const text = `\uFEFF${skill("name: x\ndescription: d", "body\n")}`.replace(/\n/g, "\r\n");
    expect(parseSkillMd(text, "x").frontmatter.description).toBe("d");
  });
});
