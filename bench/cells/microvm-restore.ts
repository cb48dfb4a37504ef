// A microVM's warm restore, measured beside its cold boot: an echo cell boots, the running VM is saved to a
// file (QEMU `migrate "exec:cat > file"`, TCG and virtio-serial included), then restored with `-incoming`
// and a fresh channel socket, and timed to its first reply. Cells do not start this way: every VM restored
// from one file has the same kernel random pool and runtime state, and a clock that resumes at the save
// (the guest kernel has no vmgenid to learn it was restored); measured here to show what it would give.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { ensureBrainDisk } from "../../src/cells/brain-disk.js";
import { type ImagePaths, microvmArgs, ProtocolPeer } from "../../src/cells/index.js";
import { percentile } from "../percentile.js";

export interface RestoreFigures {
  bootToHeartbeatMs: number;
  saveMs: number;
  stateMiB: number;
  restoreToFirstReplyMs: number;
  runs: number;
}

async function listen(socketPath: string): Promise<Promise<Socket>> {
  const server = createServer();
  const connected = new Promise<Socket>((resolve) =>
    server.once("connection", (socket) => {
      server.close();
      resolve(socket);
    }),
  );
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return connected;
}

/** One HMP command over the monitor socket; resolves with what the monitor printed up to its next prompt. */
async function monitor(socketPath: string, command: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await new Promise<string>((resolve, reject) => {
        const socket = connect(socketPath);
        let out = "";
        socket.on("error", reject);
        socket.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.split("(qemu)").length > 2) {
            socket.end();
            resolve(out);
          }
        });
        socket.once("connect", () => socket.write(`${command}\n`));
      });
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function measureMicrovmRestore(
  paths: ImagePaths,
  accel: "kvm" | "tcg",
  home: string,
  runs = 3,
): Promise<RestoreFigures> {
  const dir = await mkdtemp(join(home, "restore-"));
  await mkdir(join(dir, "user"));
  const brain = await ensureBrainDisk(join(dir, "user"), 64);
  const qemu = (
    name: string,
    extra: string[],
  ): { child: ChildProcess; channel: Promise<Promise<Socket>>; mon: string } => {
    const socketPath = join(dir, `${name}.sock`);
    const mon = join(dir, `${name}.mon`);
    const channel = listen(socketPath);
    const args = microvmArgs({
      paths,
      accel,
      memoryMiB: 256,
      cpus: 1,
      userId: "restored",
      handler: "echo",
      brainFile: brain.file,
      socketPath,
    });
    const child = spawn("qemu-system-x86_64", [...args, "-monitor", `unix:${mon},server,nowait`, ...extra], {
      stdio: ["ignore", "ignore", "ignore"],
    });
    return { child, channel, mon };
  };
  const firstFrame = (peer: ProtocolPeer) =>
    new Promise<void>((resolve) => {
      const off = peer.onMessage(() => {
        off();
        resolve();
      });
    });
  try {
    let started = performance.now();
    const boot = qemu("boot", []);
    // The channel must be listening before QEMU starts; its connection comes once QEMU is up.
    const bootPeer = new ProtocolPeer(await await boot.channel, {
      userId: "restored",
      sessionId: "w",
      heartbeatMs: 0,
    });
    // Only the Heartbeat before the save: a request now would leave a msg_id the restored guest remembers.
    await firstFrame(bootPeer);
    const bootToHeartbeatMs = performance.now() - started;
    started = performance.now();
    await monitor(boot.mon, "stop");
    await monitor(boot.mon, `migrate "exec:cat > ${join(dir, "vm.state")}"`);
    while (!/Migration status: completed/.test(await monitor(boot.mon, "info migrate")))
      await new Promise((r) => setTimeout(r, 50));
    const saveMs = performance.now() - started;
    boot.child.kill("SIGKILL");
    bootPeer.close();
    const restores: number[] = [];
    for (let i = 0; i < runs; i++) {
      started = performance.now();
      const vm = qemu(`restore${i}`, ["-incoming", `exec:cat ${join(dir, "vm.state")}`]);
      const socket = await await vm.channel;
      while (/inmigrate/.test(await monitor(vm.mon, "info status")))
        await new Promise((r) => setTimeout(r, 10));
      await monitor(vm.mon, "cont");
      const peer = new ProtocolPeer(socket, { userId: "restored", sessionId: "w", heartbeatMs: 0 });
      const reply = await peer.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 60_000 });
      if (reply.type !== "FileOpResult") throw new Error(`the restored VM answered ${reply.type}`);
      restores.push(performance.now() - started);
      vm.child.kill("SIGKILL");
      peer.close();
    }
    return {
      bootToHeartbeatMs,
      saveMs,
      stateMiB: (await stat(join(dir, "vm.state"))).size / 1048576,
      restoreToFirstReplyMs: percentile(restores, 50),
      runs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
