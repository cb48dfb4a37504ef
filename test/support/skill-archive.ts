import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** A SKILL.md asking for one host with GITHUB_TOKEN in Authorization, the program sh and the bash tool. */
export function githubSkillMd(name: string, extra = ""): string {
  return [
    "---",
    `name: ${name}`,
    "description: Files and reads GitHub issues",
    "allowed-tools: bash",
    "metadata:",
    "  openclaw:",
    "    requires:",
    "      bins: [sh]",
    "  ironclaw:",
    "    egress:",
    "      - { host: api.github.com, secret: GITHUB_TOKEN, header: Authorization, format: 'Bearer {secret}' }",
    "---",
    `# ${name}${extra}`,
    "",
  ].join("\n");
}

/**
 * A .tar.gz made by the system's tar of a folder `name/` holding `files` (or of the files alone when `flat`);
 * `prepare` adds what a string cannot (links), `tarArgs` bends member names (a path out of the folder).
 */
export async function skillArchive(
  scratch: string,
  name: string,
  files: Record<string, string | Buffer>,
  options: { flat?: boolean; tarArgs?: string[]; prepare?: (dir: string) => Promise<void> } = {},
): Promise<Buffer> {
  const root = await mkdtemp(join(scratch, "src-"));
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await mkdir(dir, { recursive: true });
  await options.prepare?.(dir);
  const out = join(root, "out.tgz");
  const members = options.flat ? ["-C", dir, ...Object.keys(files)] : ["-C", root, name];
  execFileSync("tar", ["-czf", out, ...(options.tarArgs ?? []), ...members]);
  return readFile(out);
}
