// What certifying a chat turn costs: the same scripted turns through ChatCore (the warden's chat path over fake
// cells and the real proxies, as the chat tests wire it) for a user with neither brain history nor certificates,
// one with both as the daemon wires them, and one whose certification is held back and then run alone, so the
// host's wall and CPU time for the record (read the brain, git) and for the certificate (hash, sign, write the
// node and the evidence) are measured off the reply path, per turn.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBrainHistorySink, verifyEvidence } from "../../src/attest/index.js";
import { createLogger } from "../../src/core/index.js";
import {
  type CertifiedTurn,
  evidenceDirOf,
  TurnCertifier,
  type TurnCertifying,
} from "../../src/warden/attest/index.js";
import { ChatCore } from "../../src/warden/chat-core.js";
import { WORKFLOW_REF } from "../../test/support/evidence-folder.js";
import { startScriptedUnits } from "../../test/support/warden-units.js";
import { summarise } from "../agent/timing.js";

/** As daemon.ts starts a brain's record: past the end of the turn that changed it. */
const DAEMON_RECORD_DELAY_MS = 250;
const USERS = { plain: "plain", certified: "certified", measured: "measured" } as const;

type Summary = ReturnType<typeof summarise>;
export interface CertificationCost {
  turns: number;
  /** The turn as its user sees it, from the message to `done`, in ms. */
  turn: { plain: Summary; certified: Summary; recordedAtOnce: Summary };
  /** Per turn, off the reply path: the brain's record (git runs in child processes) and the certificate. */
  history: { wallMs: Summary; cpuMs: Summary; childCpuMsMean: number };
  certificate: { wallMs: Summary; cpuMs: Summary };
  /** Both certified users' evidence folders pass verify whole, one certificate per turn. */
  verified: boolean;
}

export async function measureCertification(turns: number): Promise<CertificationCost> {
  const started = await startScriptedUnits(
    () => ({
      // The agent notes each message in its user's memory, so every turn leaves a new brain state.
      async *onUserMessage(message) {
        const user = message.text.slice(0, message.text.indexOf(":"));
        writeFileSync(join(brainOf(user), "memory.md"), `# Memory\n- ${message.text}\n`);
        yield { kind: "final", text: `noted: ${message.text}`, usage: { input_tokens: 1, output_tokens: 1 } };
      },
    }),
    { users: Object.values(USERS) },
  );
  const u = started.units;
  const brainOf = (user: string) => join(u.home, "users", user, "brain");
  try {
    const logger = createLogger("bench", { level: "silent" });
    const base = { cells: u.cells, conversations: u.conversations, soul: u.soul, logger };
    const certifier = () => new TurnCertifier({ home: u.home, logger, workflowRef: WORKFLOW_REF });
    const daemonSink = createBrainHistorySink({
      home: u.home,
      brainDirOf: brainOf,
      delayMs: DAEMON_RECORD_DELAY_MS,
    });
    const daemonCertifier = certifier();
    const atOnceSink = createBrainHistorySink({ home: u.home, brainDirOf: brainOf });
    const heldCertifier = certifier();
    const held: CertifiedTurn[] = [];
    const holding: TurnCertifying = { certify: (turn) => void held.push(turn), settle: async () => {} };
    const chats = {
      plain: new ChatCore(base),
      certified: new ChatCore({ ...base, brainChanges: daemonSink, certifier: daemonCertifier }),
      measured: new ChatCore({ ...base, brainChanges: atOnceSink, certifier: holding }),
    };
    const sessions = new Map<string, string>();
    const turn = async (user: keyof typeof USERS, n: number): Promise<number> => {
      const text = `${USERS[user]}: turn ${n}`;
      const session = sessions.get(user);
      const t = performance.now();
      let seen: number | undefined;
      for await (const event of chats[user].turn({
        channel: "api",
        userId: USERS[user],
        text,
        ...(session ? { sessionId: session } : {}),
      })) {
        if (event.type === "session") sessions.set(user, event.sessionId);
        if (event.type !== "done") continue;
        seen = performance.now() - t;
        if (event.text !== `noted: ${text}`) throw new Error(`unexpected answer: ${JSON.stringify(event)}`);
      }
      if (seen === undefined) throw new Error(`${user}'s turn ${n} ended without done`);
      return seen;
    };
    const samples = {
      plain: [] as number[],
      certified: [] as number[],
      measured: [] as number[],
      historyWall: [] as number[],
      historyCpu: [] as number[],
      childCpu: 0,
      certificateWall: [] as number[],
      certificateCpu: [] as number[],
    };
    const rounds: Record<keyof typeof USERS, (n: number, timed: boolean) => Promise<void>> = {
      plain: async (n, timed) => {
        const ms = await turn("plain", n);
        if (timed) samples.plain.push(ms);
      },
      certified: async (n, timed) => {
        const ms = await turn("certified", n);
        if (timed) samples.certified.push(ms);
        // A person's next message is seconds away: the record and the certificate are done by then.
        await daemonSink.settle();
        await daemonCertifier.settle();
      },
      measured: async (n, timed) => {
        const ms = await turn("measured", n);
        const history = await timeHostWork(() => atOnceSink.settle());
        const certificate = await timeHostWork(async () => {
          for (const one of held.splice(0)) heldCertifier.certify(one);
          await heldCertifier.settle();
        });
        if (!timed) return;
        samples.measured.push(ms);
        samples.historyWall.push(history.wallMs);
        samples.historyCpu.push(history.cpuMs);
        samples.childCpu += history.childCpuMs;
        samples.certificateWall.push(certificate.wallMs);
        samples.certificateCpu.push(certificate.cpuMs);
      },
    };
    const order = Object.keys(rounds) as Array<keyof typeof USERS>;
    const warmUp = Math.max(5, Math.floor(turns / 10));
    for (let n = 0; n < warmUp + turns; n++)
      // Each round starts with another user, so none always follows the host work of another.
      for (let i = 0; i < order.length; i++)
        await rounds[order[(n + i) % order.length] as keyof typeof USERS](n, n >= warmUp);
    const passes = (user: string) => {
      const report = verifyEvidence(evidenceDirOf(u.home, user));
      return report.ok && report.certificates.length === warmUp + turns;
    };
    return {
      turns,
      turn: {
        plain: summarise(samples.plain),
        certified: summarise(samples.certified),
        recordedAtOnce: summarise(samples.measured),
      },
      history: {
        wallMs: summarise(samples.historyWall),
        cpuMs: summarise(samples.historyCpu),
        childCpuMsMean: samples.childCpu / turns,
      },
      certificate: { wallMs: summarise(samples.certificateWall), cpuMs: summarise(samples.certificateCpu) },
      verified: passes(USERS.certified) && passes(USERS.measured),
    };
  } finally {
    await u.close();
  }
}

/** Wall time, this process's CPU time (every thread) and its finished children's CPU time, of `work`. */
async function timeHostWork(
  work: () => Promise<unknown>,
): Promise<{ wallMs: number; cpuMs: number; childCpuMs: number }> {
  const children = childCpuMs();
  const cpu = process.cpuUsage();
  const t = performance.now();
  await work();
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, childCpuMs: childCpuMs() - children };
}

/** cutime + cstime of /proc/self/stat: the CPU time of children waited for, in clock ticks of 10 ms. */
function childCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
