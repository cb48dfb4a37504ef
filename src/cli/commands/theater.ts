import { isAbsolute, resolve } from "node:path";
import { println } from "../command.js";
import { openHostCommand } from "../command-host.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const USER = {
  name: "user",
  type: "string",
  valueName: "name",
  default: "admin",
  description: "the user the theater belongs to (default admin)",
} as const;

const add = defineCommand({
  name: "add",
  summary: "create a theater: a git repository command's orders work in, one worktree each",
  positionals: [{ name: "id", required: true, description: "the theater's id (letters, digits, _ . -)" }],
  options: [
    {
      name: "repo",
      type: "string",
      valueName: "path",
      description:
        "an existing repository (or empty folder) to use (default $IRONCLAW_HOME/theaters/<id>/repo)",
    },
    USER,
    jsonOption("the theater"),
  ],
  async run({ options, args }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const repo = options.repo === undefined ? undefined : resolve(io.cwd, options.repo);
      const added = await service.theaters.add({
        theaterId: args.id,
        owner: options.user,
        ...(repo && isAbsolute(repo) ? { repoPath: repo } : {}),
      });
      if (options.json) println(io.stdout, JSON.stringify(added));
      else
        println(
          io.stdout,
          `${added.created ? "created" : "opened"} theater ${added.theater_id} for ${added.owner}: ${added.repo_path}`,
        );
      return 0;
    } finally {
      await close();
    }
  },
});

const list = defineCommand({
  name: "list",
  summary: "the theaters on this host, or one user's",
  options: [
    { ...USER, default: undefined, description: "only this user's theaters" },
    jsonOption("the theaters"),
  ],
  async run({ options }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const theaters = await service.theaters.list(options.user ? { owner: options.user } : {});
      if (options.json) println(io.stdout, JSON.stringify(theaters));
      else if (theaters.length === 0) println(io.stdout, "no theaters");
      else
        for (const t of theaters)
          println(io.stdout, `${t.theater_id.padEnd(24)} ${t.owner.padEnd(16)} ${t.repo_path}`);
      return 0;
    } finally {
      await close();
    }
  },
});

export const theaterCommand = defineGroup({
  name: "theater",
  summary: "command's theaters: the repositories runs work in",
  subcommands: [add, list],
});
