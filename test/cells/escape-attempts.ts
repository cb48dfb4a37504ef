import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { shellIn } from "./cell-shell.js";
import { BOUNDARY_ATTEMPTS } from "./escape-boundary.js";
import { EXHAUSTION_ATTEMPTS } from "./escape-exhaustion.js";
import { PROTOCOL_ATTEMPTS } from "./escape-protocol.js";
import { type EscapeAttempt, reversed, unreverse } from "./escape-scene.js";

export type { AttemptResult, EscapeAttempt, EscapeScene } from "./escape-scene.js";

/** Reads the named file and prints it; the control reads a file the cell may read, with the same command. */
const readProbe = (path: string) => `cat ${path} 2>&1 | head -c 4096`;

const SEE_PROCESSES =
  `node -e 'const fs=require("fs");const m=process.argv[1].split("").reverse().join("");` +
  `const ps=fs.readdirSync("/proc").filter((p)=>/^\\d+$/.test(p));` +
  `const seen=ps.filter((p)=>{try{return fs.readFileSync("/proc/"+p+"/cmdline","utf8").includes(m)}catch{return false}});` +
  `console.log(seen.length, ps.length)'`;

const CONNECT = (host: string, port: number) =>
  `node -e 'const s=require("net").connect(${port},"${host}");s.on("connect",()=>{console.log("CONNECTED ${host}");process.exit(0)});s.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),3000)'`;

const ISOLATION_ATTEMPTS: EscapeAttempt[] = [
  {
    name: "read a host file outside the brain",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const cell = scene.cell();
      const out = await shellIn(
        cell,
        `${readProbe(scene.secretFile)}; cat /etc/shadow 2>/dev/null | head -c 64`,
      );
      // Control: the same read of a file in the cell's own brain prints its text.
      await cell.call({ type: "FileOpRequest", op: "write", path: "readable.md", content: scene.secretText });
      const control = await shellIn(cell, readProbe("readable.md"));
      return {
        contained: !out.stdout.includes(scene.secretText),
        evidence: out.stdout.trim().slice(0, 200) || out.stderr.trim() || "nothing read",
        controlDetected: control.stdout.includes(scene.secretText),
        control: `the same read of a brain file printed ${control.stdout.length} bytes`,
      };
    },
  },
  {
    name: "write to the rootfs",
    harmsUnisolatedHost: true,
    leaksWithoutIsolation: true,
    async run(scene) {
      const tag = `ironclaw-escape-${process.pid}-${Date.now()}`;
      const targets = [`/${tag}`, `/usr/${tag}`, `/usr/bin/${tag}`, `/opt/ironclaw/${tag}`, `/etc/${tag}`];
      const write = (paths: string[]) =>
        paths.map((t) => `(echo x > ${t}) 2>/dev/null && echo WROTE ${t}`).join("; ");
      const out = await shellIn(scene.cell(), write(targets));
      const onHost = targets.filter((t) => existsSync(t));
      const control = await shellIn(scene.cell(), `${write([`./${tag}`])}; rm -f ./${tag}`);
      return {
        contained: !out.stdout.includes("WROTE") && onHost.length === 0,
        evidence: out.stdout.trim() || "every write refused",
        controlDetected: control.stdout.includes("WROTE"),
        control: `the same write into the brain: ${control.stdout.trim() || "refused"}`,
      };
    },
  },
  {
    name: "reach the network",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const listener = await listen();
      try {
        const port = (listener.server.address() as { port: number }).port;
        const hosts = ["127.0.0.1", ...hostAddresses()];
        const out = await shellIn(scene.cell(), hosts.map((h) => CONNECT(h, port)).join("; "));
        const reached = listener.connections();
        // Control: the very same probe, run on the host, reaches the listener.
        const control = await runOnHost(CONNECT("127.0.0.1", port));
        return {
          contained: reached === 0 && !out.stdout.includes("CONNECTED"),
          evidence: `${reached} connection(s) reached the host; ${out.stdout.trim() || "none connected"}`,
          controlDetected: control.includes("CONNECTED") && listener.connections() > reached,
          control: `the same probe on the host: ${control.trim() || "no connection"}`,
        };
      } finally {
        listener.server.close();
      }
    },
  },
  {
    name: "see host processes",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const marker = `ironclaw-host-marker-${process.pid}-${Date.now()}`;
      const hostProcess = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", marker], {
        stdio: "ignore",
      });
      try {
        await new Promise((r) => setTimeout(r, 200));
        const out = await shellIn(scene.cell(), `${SEE_PROCESSES} ${reversed(marker)}`);
        const [seen = "0", visible = "?"] = out.stdout.trim().split(" ");
        // Control: a process the cell starts itself, carrying another marker, is seen by the same probe.
        const own = `ironclaw-cell-marker-${process.pid}-${Date.now()}`;
        const control = await shellIn(
          scene.cell(),
          `${unreverse("M", own)}; node -e 'setTimeout(()=>{},30000)' "$M" & sleep 1; ${SEE_PROCESSES} ${reversed(own)}; kill $!`,
        );
        const [ownSeen = "0"] = control.stdout.trim().split(" ");
        return {
          contained: Number(seen) === 0,
          evidence: `${visible} processes visible, host marker seen ${seen}×`,
          controlDetected: Number(ownSeen) > 0,
          control: `a marker process started in the cell seen ${ownSeen}×`,
        };
      } finally {
        stopProcess(hostProcess);
      }
    },
  },
  {
    name: "a second user's brain is never visible",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const find = (marker: string) =>
        `cat ${scene.bystanderBrainHostPath}/${marker}.md 2>/dev/null; ` +
        `find /mnt /tmp /opt /home /root /var . ${scene.bystanderBrainHostPath} -name '${marker}*' 2>/dev/null | head -n 3`;
      const out = await shellIn(scene.cell(), find(scene.bystanderMarker));
      // Control: the same search finds the inmate's own marker in its own brain.
      const own = `inmate-marker-${process.pid}`;
      await scene.cell().call({ type: "FileOpRequest", op: "write", path: `${own}.md`, content: own });
      const control = await shellIn(scene.cell(), find(own));
      return {
        contained: !out.stdout.includes(scene.bystanderMarker),
        evidence: out.stdout.trim() || "nothing found",
        controlDetected: control.stdout.includes(own),
        control: `the same search for the inmate's own marker: ${control.stdout.trim().split("\n")[0] ?? ""}`,
      };
    },
  },
];

export const ESCAPE_ATTEMPTS: EscapeAttempt[] = [
  ...ISOLATION_ATTEMPTS,
  ...EXHAUSTION_ATTEMPTS,
  ...PROTOCOL_ATTEMPTS,
  ...BOUNDARY_ATTEMPTS,
];

function runOnHost(command: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("close", () => resolve(out));
  });
}

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
