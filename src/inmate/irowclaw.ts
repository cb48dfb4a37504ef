#!/usr/bin/env node
// irowclaw: the inmate runtime's entry inside a cell. It speaks the framed protocol on one channel and hands
// each request to a handler; the host starts it through a cell backend, never directly.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { GUEST_HANDLERS, type ProtocolPeer } from "../channel/index.js";
import type { CellHandler } from "./cell-handler.js";
import { serveCell } from "./cell-server.js";
import { openGuestChannel } from "./guest-channel.js";

/** Readies a blank cell's handler without making it: its code loaded and, for the agent, run once. */
async function warmUp(name: string): Promise<void> {
  if (name === "echo") {
    await import("./echo-handler.js");
    return;
  }
  if (name === "shell") {
    await import("./shell-test-handler.js");
    return;
  }
  if (name === "gate") {
    await import("./gate-handler.js");
    return;
  }
  await import("./agent-handler.js");
  await (await import("./blank-warm-up.js")).warmUpAgentRuntime();
}

async function loadHandler(
  name: string,
  brainRoot: string,
  skillsDir: string | undefined,
  peer: ProtocolPeer,
  toolEnv: () => Record<string, string>,
): Promise<CellHandler> {
  if (name === "echo") return (await import("./echo-handler.js")).createEchoDevHandler();
  if (name === "shell") return (await import("./shell-test-handler.js")).createShellTestHandler();
  if (name === "gate") return (await import("./gate-handler.js")).createGateHandler();
  if (name === "agent" || name === "order") {
    const { createAgentHandler } = await import("./agent-handler.js");
    // Model calls, provider embeddings and web fetches go to the warden over the channel: the cell has
    // neither keys nor network.
    return createAgentHandler({
      brainRoot,
      warden: peer,
      toolEnv,
      ...(skillsDir ? { skillsDir } : {}),
      ...(name === "order" ? { stateless: true } : {}),
    });
  }
  throw new Error(`unknown handler ${name}: use one of ${GUEST_HANDLERS.join(", ")}`);
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      channel: { type: "string", default: "stdio" },
      brain: { type: "string", default: "/mnt/brain" },
      // The user's installed skills, read-only (/mnt/skills in a cell); absent: the agent is offered none.
      skills: { type: "string" },
      user: { type: "string" },
      handler: { type: "string", default: "agent" },
      "max-frame-bytes": { type: "string" },
      "heartbeat-ms": { type: "string" },
      "run-as": { type: "string" },
      // A pool cell: started before its user is known, its brain attached when it is handed out; --user
      // is then a stand-in, replaced by the user the warden's first Hello names.
      blank: { type: "boolean", default: false },
    },
  });
  if (!values.user) {
    process.stderr.write("irowclaw: --user is required\n");
    return 2;
  }
  const handlerName = values.handler;
  if (!(GUEST_HANDLERS as readonly string[]).includes(handlerName)) {
    process.stderr.write(
      `irowclaw: unknown handler ${handlerName}: use one of ${GUEST_HANDLERS.join(", ")}\n`,
    );
    return 2;
  }
  const stream = await openGuestChannel(values.channel);
  // A traced microVM boot (ironclaw.trace=1) also says how long node took to get here.
  if (process.env.IRONCLAW_TRACE === "1")
    process.stderr.write(`irowclaw: serving after ${(process.uptime() * 1000).toFixed(0)} ms in node\n`);
  // In a microVM the channel device belongs to root: open it first, then give up root for good, before the
  // brain is opened, so nothing in it is created as root.
  if (values["run-as"]) dropPrivileges(values["run-as"]);
  // Signals end the channel like a host-side close would; the server then flushes the handler and returns.
  const stopping = () => stream.end(() => stream.destroy());
  process.once("SIGTERM", stopping);
  process.once("SIGINT", stopping);
  // A blank cell loads its handler's code and, for the agent, runs it once on a throwaway brain
  // (blank-warm-up.ts) before its first Heartbeat: the pool counts it only once the hand-out has nothing
  // left to do but build the handler on the user's brain. A warm-up that fails only leaves that to the
  // hand-out.
  if (values.blank) await warmUp(handlerName).catch(() => undefined);
  const info = await serveCell(
    stream,
    (peer, services) => loadHandler(handlerName, values.brain, values.skills, peer, services.toolEnv),
    {
      userId: values.user,
      brainRoot: values.brain,
      blank: values.blank,
      ...(values["max-frame-bytes"] ? { maxFrameBytes: Number(values["max-frame-bytes"]) } : {}),
      ...(values["heartbeat-ms"] ? { heartbeatMs: Number(values["heartbeat-ms"]) } : {}),
    },
  );
  process.stderr.write(`irowclaw: channel closed (${info.reason}); ${handlerName} flushed\n`);
  return 0;
}

function dropPrivileges(spec: string): void {
  const [uid, gid] = spec.split(":").map(Number);
  if (uid === undefined || gid === undefined || !Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new Error(`--run-as wants uid:gid, got ${spec}`);
  }
  process.setgroups?.([]);
  process.setgid?.(gid);
  process.setuid?.(uid);
}

/** Runs irowclaw as the process's program: exits with its status, or 1 with the error on stderr. */
export function runMain(argv: string[]): void {
  main(argv).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`irowclaw: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}

// Started as a file of its own (the sources under tsx, dist/); the bundle's loader calls runMain instead.
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) runMain(process.argv.slice(2));
