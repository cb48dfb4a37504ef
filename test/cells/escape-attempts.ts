import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import type { CellHandle } from "../../src/cells/index.js";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame } from "../../src/cells/index.js";
import { answers, shellIn } from "./cell-shell.js";

/** What the suite knows about the host and the two cells, for the attempts to aim at. */
export interface EscapeScene {
  /** The cell that tries to escape (user "inmate"). */
  cell: () => CellHandle;
  /** Another user's cell, which must keep serving throughout. */
  bystander: () => CellHandle;
  /** A host file outside every brain, and its secret text. */
  secretFile: string;
  secretText: string;
  /** The bystander's brain directory on the host (directory backends) or disk image (microvm). */
  bystanderBrainHostPath: string;
  /** A marker the bystander's brain holds in a file named after it. */
  bystanderMarker: string;
  /** The caps the backend promises, in MiB. */
  caps: { brainFileMiB: number; workspaceMiB: number; memoryMiB: number; processes: number };
}

export interface AttemptResult {
  contained: boolean;
  evidence: string;
}

export interface EscapeAttempt {
  name: string;
  /** Unsafe to let loose on a host with no isolation: writes to /usr, fork bombs, memory or disk floods. */
  harmsUnisolatedHost: boolean;
  run(scene: EscapeScene): Promise<AttemptResult>;
}

export const ESCAPE_ATTEMPTS: EscapeAttempt[] = [
  {
    name: "read a host file outside the brain",
    harmsUnisolatedHost: false,
    async run(scene) {
      const out = await shellIn(
        scene.cell(),
        `cat ${scene.secretFile}; cat /etc/shadow 2>/dev/null | head -c 64`,
      );
      return {
        contained: !out.stdout.includes(scene.secretText),
        evidence: out.stderr.trim() || out.stdout.slice(0, 200),
      };
    },
  },
  {
    name: "write to the rootfs",
    harmsUnisolatedHost: true,
    async run(scene) {
      const tag = `ironclaw-escape-${process.pid}-${Date.now()}`;
      const targets = [`/${tag}`, `/usr/${tag}`, `/usr/bin/${tag}`, `/opt/ironclaw/${tag}`, `/etc/${tag}`];
      const script = targets.map((t) => `(echo x > ${t}) 2>/dev/null && echo WROTE ${t}`).join("; ");
      const out = await shellIn(scene.cell(), script);
      const onHost = targets.filter((t) => existsSync(t));
      return {
        contained: !out.stdout.includes("WROTE") && onHost.length === 0,
        evidence: out.stdout || "every write refused",
      };
    },
  },
  {
    name: "reach the network",
    harmsUnisolatedHost: false,
    async run(scene) {
      const listener = await listen();
      try {
        const port = (listener.server.address() as { port: number }).port;
        const hosts = ["127.0.0.1", ...hostAddresses()];
        const probe = hosts
          .map(
            (h) =>
              `node -e 'const s=require("net").connect(${port},"${h}");s.on("connect",()=>{console.log("CONNECTED ${h}");process.exit(0)});s.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),3000)'`,
          )
          .join("; ");
        const out = await shellIn(scene.cell(), probe);
        return {
          contained: listener.connections() === 0 && !out.stdout.includes("CONNECTED"),
          evidence: `${listener.connections()} connection(s) reached the host; ${out.stdout.trim() || "none connected"}`,
        };
      } finally {
        listener.server.close();
      }
    },
  },
  {
    name: "see host processes",
    harmsUnisolatedHost: false,
    async run(scene) {
      const marker = `ironclaw-host-marker-${process.pid}-${Date.now()}`;
      const hostProcess = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", marker], {
        stdio: "ignore",
      });
      try {
        await new Promise((r) => setTimeout(r, 200));
        // The marker travels reversed, so no process in the cell carries it in its own command line.
        const reversed = [...marker].reverse().join("");
        const out = await shellIn(
          scene.cell(),
          `node -e 'const fs=require("fs");const m=process.argv[1].split("").reverse().join("");` +
            `const ps=fs.readdirSync("/proc").filter((p)=>/^\\d+$/.test(p));` +
            `const seen=ps.filter((p)=>{try{return fs.readFileSync("/proc/"+p+"/cmdline","utf8").includes(m)}catch{return false}});` +
            `console.log(seen.length, ps.length)' ${reversed}`,
        );
        const [seen = "0", visible = "?"] = out.stdout.trim().split(" ");
        return {
          contained: Number(seen) === 0,
          evidence: `${visible} processes visible, host marker seen ${seen}×`,
        };
      } finally {
        stopProcess(hostProcess);
      }
    },
  },
  {
    name: "fork bomb",
    harmsUnisolatedHost: true,
    async run(scene) {
      const out = await shellIn(
        scene.cell(),
        // Counts the cell user's processes (uid 1000 in every backend), not the guest kernel's threads.
        `(bomb() { bomb | bomb & }; bomb) >/dev/null 2>&1 & sleep 4; grep -l '^Uid:[[:space:]]*1000[[:space:]]' /proc/[0-9]*/status 2>/dev/null | wc -l`,
      );
      const sample = out.stdout.trim().split("\n").pop() ?? "";
      // At the limit the sampling pipeline itself may not be able to fork: that is the limit holding.
      const visible = Number(sample) || 0;
      const sampled = visible > 0;
      const stillServing = await answers(scene.bystander());
      await scene.cell().stop({ timeoutMs: 5_000 });
      return {
        contained: stillServing && (!sampled || visible <= scene.caps.processes + 16),
        evidence: `${sampled ? `${visible} cell processes at the sample` : "the sample could not fork (process limit reached)"}; bystander ${stillServing ? "answers" : "is silent"}`,
      };
    },
  },
  {
    name: "fill the disk",
    harmsUnisolatedHost: true,
    async run(scene) {
      const out = await shellIn(
        scene.cell(),
        [
          "dd if=/dev/zero of=/mnt/brain/fill bs=1M count=4096 2>/dev/null; echo brain=$(du -m /mnt/brain/fill | cut -f1)",
          "dd if=/dev/zero of=/tmp/workspace/fill bs=1M count=4096 2>/dev/null; echo work=$(du -m /tmp/workspace/fill | cut -f1)",
          "rm -f /mnt/brain/fill /tmp/workspace/fill; sync",
        ].join("; "),
      );
      const brain = Number(/brain=(\d+)/.exec(out.stdout)?.[1] ?? "NaN");
      const work = Number(/work=(\d+)/.exec(out.stdout)?.[1] ?? "NaN");
      return {
        contained: brain <= scene.caps.brainFileMiB + 1 && work <= scene.caps.workspaceMiB + 1,
        evidence: `brain file stopped at ${brain} MiB (cap ${scene.caps.brainFileMiB}), workspace at ${work} MiB (cap ${scene.caps.workspaceMiB})`,
      };
    },
  },
  {
    name: "allocate past the memory limit",
    harmsUnisolatedHost: true,
    async run(scene) {
      const out = await shellIn(
        scene.cell(),
        `node -e 'const a=[];let n=0;for(;;){try{a.push(Buffer.alloc(16<<20,1));n+=16;console.log(n)}catch(e){console.log("refused at",n);break}}' 2>&1 | grep -E "^[0-9]+$|refused" | tail -n 1`,
      );
      // The last size printed before the allocation was refused or the process was killed.
      const reached = Number(/(\d+)\s*$/.exec(out.stdout.trim())?.[1] ?? "0");
      const stillServing = await answers(scene.bystander());
      return {
        contained: reached <= scene.caps.memoryMiB + 64 && stillServing,
        evidence: `allocation stopped at ${reached} MiB (cap ${scene.caps.memoryMiB}); ${out.stdout.trim().split("\n").pop()}`,
      };
    },
  },
  {
    name: "send an oversize or garbage frame",
    harmsUnisolatedHost: false,
    async run(scene) {
      const cell = scene.cell();
      const errors: string[] = [];
      const off = cell.onEvent((m) => {
        if (m.type === "Error" && m.reply_to === undefined) errors.push(m.code);
      });
      // Host → guest: a frame that is not JSON, then one over the size limit; the guest must answer both.
      const junk = Buffer.from("definitely { not json");
      const header = Buffer.alloc(4);
      header.writeUInt32BE(junk.length);
      cell.peer.writeRaw(Buffer.concat([header, junk]));
      const tooBig = DEFAULT_MAX_FRAME_BYTES + 1024 * 1024;
      const oversize = Buffer.alloc(4 + tooBig, 0x20);
      oversize.writeUInt32BE(tooBig);
      cell.peer.writeRaw(oversize);
      const guestSurvived = await answers(cell);
      off();
      // Guest → host: garbage whose length prefix is absurd. The host must close that cell, not crash.
      const absurd = Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), encodeFrame({ hello: 1 })]);
      void cell
        .call({ type: "UserMessage", text: `!raw ${absurd.toString("base64")}` })
        .catch(() => undefined);
      const exit = await Promise.race([
        cell.exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 30_000)),
      ]);
      const stillServing = await answers(scene.bystander());
      return {
        contained:
          guestSurvived &&
          errors.includes("malformed_frame") &&
          errors.includes("frame_too_large") &&
          stillServing,
        evidence: `guest answered ${errors.join(", ")}; after the guest's garbage the host ${exit ? `ended the cell (${exit.reason})` : "kept it"}; bystander ${stillServing ? "answers" : "is silent"}`,
      };
    },
  },
  {
    name: "a second user's brain is never visible",
    harmsUnisolatedHost: false,
    async run(scene) {
      const out = await shellIn(
        scene.cell(),
        `cat ${scene.bystanderBrainHostPath}/${scene.bystanderMarker}.md 2>/dev/null; ` +
          `find /mnt /tmp /opt /home /root /var ${scene.bystanderBrainHostPath} -name '${scene.bystanderMarker}*' 2>/dev/null | head -n 3`,
      );
      return {
        contained: !out.stdout.includes(scene.bystanderMarker),
        evidence: out.stdout.trim() || "nothing found",
      };
    },
  },
];

function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === "IPv4" && !a.internal)
    .map((a) => (a as { address: string }).address);
}

async function listen(): Promise<{ server: Server; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  return { server, connections: () => count };
}

function stopProcess(child: ChildProcess): void {
  if (child.exitCode === null) child.kill("SIGKILL");
}
