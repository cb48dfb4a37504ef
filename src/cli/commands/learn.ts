import { userInfo } from "node:os";
import type { PolicyView } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { type CliIo, println } from "../command.js";
import { openHostCommand } from "../command-host.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const VERSION = { name: "version", required: true, description: "a policy version (1, 2, …)" } as const;

/** Who moved the policy from this host's shell: the pin and rollback events name them. */
const byCli = () => `${userInfo().username} (cli)`;

function versionOf(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new InvalidInputError("version", "must be a whole number from 1");
  return Number(text);
}

const tick = defineCommand({
  name: "tick",
  summary: "measure outcomes by profile and task type; write a new policy version when a route changed",
  options: [jsonOption("the tick")],
  async run({ options }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const result = await service.learning.tick();
      if (options.json) println(io.stdout, JSON.stringify(result));
      else {
        const state = result.pinned ? "pinned" : result.changed ? "new" : "unchanged";
        println(io.stdout, `policy v${result.policy_version} (${state}), ${result.events_considered} events`);
        for (const r of result.outcomes)
          println(
            io.stdout,
            `  ${r.task_type.padEnd(12)} ${r.profile.padEnd(20)} ${r.succeeded}/${r.orders} ok, ` +
              `${r.retries} retries, ${r.corrections} thumbs-down, p50 ${r.latency_ms.p50} ms, p95 ${r.latency_ms.p95} ms`,
          );
      }
      return 0;
    } finally {
      await close();
    }
  },
});

const policy = defineCommand({
  name: "policy",
  summary: "the active routing policy, or one version, with its diff against the version before it",
  positionals: [{ ...VERSION, required: false }],
  options: [jsonOption("the policy")],
  async run({ options, args }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const view = await service.learning.policy(args.version ? versionOf(args.version) : undefined);
      printPolicy(io, view, options.json);
      return 0;
    } finally {
      await close();
    }
  },
});

const versions = defineCommand({
  name: "versions",
  summary: "every policy version, which one is active, and whether it is pinned",
  options: [jsonOption("the versions")],
  async run({ options }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const state = await service.learning.versions();
      if (options.json) println(io.stdout, JSON.stringify(state));
      else if (state.versions.length === 0) println(io.stdout, "no policy yet: run ironclaw learn tick");
      else
        for (const v of state.versions)
          println(
            io.stdout,
            `${v.active ? "*" : " "} v${v.version}  ${v.created_at}  ${v.routes} routes, ${v.changes} changed` +
              `${v.active && state.pinned ? "  (pinned)" : ""}`,
          );
      return 0;
    } finally {
      await close();
    }
  },
});

const versionCommand = (name: "pin" | "rollback", summary: string) =>
  defineCommand({
    name,
    summary,
    positionals: [VERSION],
    options: [jsonOption("the policy")],
    async run({ options, args }, io) {
      const { service, close } = await openHostCommand(io);
      try {
        printPolicy(io, await service.learning[name](versionOf(args.version), byCli()), options.json);
        return 0;
      } finally {
        await close();
      }
    },
  });

const unpin = defineCommand({
  name: "unpin",
  summary: "let learning ticks change the active policy again",
  options: [jsonOption("the policy")],
  async run({ options }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      printPolicy(io, await service.learning.unpin(byCli()), options.json);
      return 0;
    } finally {
      await close();
    }
  },
});

export const learnCommand = defineGroup({
  name: "learn",
  summary: "command's routing policy: learn tick|policy|versions|pin|unpin|rollback",
  subcommands: [
    tick,
    policy,
    versions,
    versionCommand("pin", "hold a policy version active: ticks measure but do not change it"),
    unpin,
    versionCommand("rollback", "make an earlier policy version active again"),
  ],
});

function printPolicy(io: CliIo, view: PolicyView, json: boolean): void {
  if (json) {
    println(io.stdout, JSON.stringify(view));
    return;
  }
  const { policy } = view;
  if (!policy) {
    println(io.stdout, "no policy yet: run ironclaw learn tick");
    return;
  }
  const active = policy.version === view.active_version;
  println(
    io.stdout,
    `policy v${policy.version}${active ? ` (active${view.pinned ? ", pinned)" : ")"}` : ""}  ${policy.created_at}`,
  );
  for (const r of policy.routes)
    println(io.stdout, `  ${r.task_type.padEnd(12)} → ${r.profile.name}  ${r.reason}`);
  const changes = policy.diff.changes.map((c) => `${c.task_type}: ${c.from ?? "-"} → ${c.to ?? "-"}`);
  println(
    io.stdout,
    `  changed from v${policy.diff.previous_version ?? "-"}: ${changes.join("; ") || "nothing"}`,
  );
}
