import { userInfo } from "node:os";
import { loadHostConfig, usersDir } from "../../cells/index.js";
import { InvalidInputError, ironclawHome } from "../../core/index.js";
import {
  AuditStore,
  type InstalledSkill,
  openHostDb,
  reviewSource,
  SkillStore,
  UserStore,
} from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { askConsent, printReview, visible } from "../skill-consent.js";

const USER = {
  name: "user",
  type: "string",
  valueName: "id",
  required: true,
  description: "whose skills",
} as const;
const SOURCE = {
  name: "source",
  required: true,
  valueName: "folder|tarball",
  description:
    "a skill folder, or a .tar, .tar.gz or .tgz holding one (a draft in a brain is read the same way)",
} as const;
const CONSENT = [
  { name: "yes", type: "boolean", description: "approve what the source holds, without asking" },
  {
    name: "approve",
    type: "string",
    valueName: "sha256",
    description: "approve only this hash (as skills review printed it); anything else is refused",
  },
] as const;

const review = defineCommand({
  name: "review",
  summary:
    "what a skill holds and asks for (hosts, secrets, env, programs, tools) and its sha256; installs nothing",
  positionals: [SOURCE],
  options: [jsonOption("the review")],
  async run({ options, args }, io) {
    const { review: found } = await reviewSource(args.source);
    const { frontmatter: _, ...shown } = found;
    if (options.json) println(io.stdout, JSON.stringify(shown));
    else printReview(io, found);
    return 0;
  },
});

const install = defineCommand({
  name: "install",
  summary:
    "review a skill, ask the person to approve what it asks for, and install exactly what was approved",
  positionals: [SOURCE],
  options: [USER, ...CONSENT],
  async run({ options, args }, io) {
    return withSkillStore(io, options.user, async (store) => {
      const found = await store.review(args.source);
      printReview(io, found);
      const consent = await askConsent(io, found, { ...options, verb: "installed" });
      if ("refused" in consent) {
        println(io.stderr, consent.refused);
        return 1;
      }
      const skill = await store.install(options.user, args.source, {
        approvedSha256: consent.sha256,
        by: actor(io),
      });
      println(io.stdout, `installed ${skill.name} for ${options.user} (sha256 ${skill.sha256})`);
      if (!skill.available) println(io.stdout, `unavailable in cells: ${visible(skill.reason ?? "")}`);
      return 0;
    });
  },
});

const update = defineCommand({
  name: "update",
  summary: "review a new version of an installed skill and ask again; the old one stays until it is approved",
  positionals: [SOURCE],
  options: [USER, ...CONSENT],
  async run({ options, args }, io) {
    return withSkillStore(io, options.user, async (store) => {
      const found = await store.review(args.source);
      const current = store.list(options.user).find((s) => s.name === found.name);
      if (current?.sha256 === found.sha256) {
        println(io.stdout, `${found.name} is already at sha256 ${found.sha256}: nothing to update`);
        return 0;
      }
      if (current) println(io.stdout, `${found.name} installed: sha256 ${current.sha256}; the new version:`);
      printReview(io, found);
      const consent = await askConsent(io, found, { ...options, verb: "updated" });
      if ("refused" in consent) {
        println(io.stderr, consent.refused);
        return 1;
      }
      const skill = await store.update(options.user, args.source, {
        approvedSha256: consent.sha256,
        by: actor(io),
      });
      println(io.stdout, `updated ${skill.name} for ${options.user} (sha256 ${skill.sha256})`);
      return 0;
    });
  },
});

const list = defineCommand({
  name: "list",
  summary:
    "the user's approved skills: hash, whether each can work in a cell (and why not), what it may reach",
  options: [USER, jsonOption("the installed skills")],
  async run({ options }, io) {
    return withSkillStore(io, options.user, async (store) => {
      const skills = store.list(options.user);
      if (options.json) println(io.stdout, JSON.stringify(skills));
      else if (skills.length === 0) println(io.stdout, `no skills installed for ${options.user}`);
      else for (const skill of skills) printInstalled(io, skill);
      return 0;
    });
  },
});

const remove = defineCommand({
  name: "remove",
  summary: "uninstall a skill and drop its pin; its egress declarations stop applying at the next cell start",
  positionals: [{ name: "name", required: true, description: "the skill's name" }],
  options: [USER],
  async run({ options, args }, io) {
    return withSkillStore(io, options.user, async (store) => {
      store.remove(options.user, args.name, actor(io));
      println(io.stdout, `removed ${args.name} for ${options.user}`);
      return 0;
    });
  },
});

export const skillsCommand = defineGroup({
  name: "skills",
  summary: "review, install, update, list and remove a user's skills (AgentSkills SKILL.md folders)",
  description: `A skill is a folder with SKILL.md and text files. Installing shows what it asks for and needs the
person's approval of its exact sha256, which <IRONCLAW_HOME>/users/<id>/skills.lock records; a new version asks
again. Skills hold text only; their install specs (brew, go, download…) are never run: programs come from the
cell image. Cells see the skills folder read-only at /mnt/skills. Every decision is audited in host.db.`,
  subcommands: [review, install, update, list, remove],
});

function printInstalled(io: CliIo, skill: InstalledSkill): void {
  const state = skill.available ? "available" : `unavailable: ${visible(skill.reason ?? "")}`;
  println(io.stdout, `${skill.name}  sha256 ${skill.sha256}  ${state}`);
  println(io.stdout, `  ${visible(skill.description.split("\n")[0] ?? "")}`);
  const hosts = skill.asks.hosts.map((h) => `${h.host} (${h.secret} in ${h.header})`);
  println(io.stdout, `  hosts: ${hosts.length === 0 ? "none" : hosts.join(", ")}`);
  println(io.stdout, `  approved by ${visible(skill.approvedBy)} at ${skill.approvedAt}`);
}

async function withSkillStore(io: CliIo, user: string, work: (store: SkillStore) => Promise<number>) {
  const home = ironclawHome(io.env);
  const db = openHostDb(home);
  try {
    if (!new UserStore(db).get(user))
      throw new InvalidInputError("--user", `no user ${user} on this warden (ironclaw user list)`);
    const audit = new AuditStore(db);
    const store = new SkillStore({
      usersDir: usersDir(loadHostConfig(home), home),
      audit: (entry) => audit.record(entry),
    });
    return await work(store);
  } finally {
    db.close();
  }
}

function actor(io: CliIo): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry (some containers): fall back to the login variables.
  }
  return `cli:${name || io.env.USER || io.env.LOGNAME || "unknown"}`;
}
