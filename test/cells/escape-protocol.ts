import { DEFAULT_MAX_FRAME_BYTES, encodeFrame } from "../../src/channel/index.js";
import { answers, shellIn } from "./cell-shell.js";
import type { EscapeAttempt } from "./escape-scene.js";

/** The pid (as /proc numbers it) of the first node process whose command line holds $1: bash and bwrap never. */
const FIND_PID = `find_pid() { for p in /proc/[0-9]*; do a0=$(tr '\\0' '\\n' 2>/dev/null < $p/cmdline | head -n 1); case "$a0" in node|*/node) tr '\\0' ' ' 2>/dev/null < $p/cmdline | grep -q -- "$1" && { echo \${p#/proc/}; return; };; esac; done; }`;

/** pidfd_open takes a pid of the caller's own namespace: only meaningful when /proc numbers pids the same. */
const SAME_PID_NS = `samens=$(node -e 'console.log(require("fs").readlinkSync("/proc/self")===String(process.pid)?1:0)')`;

/**
 * Tries every way a tool process could reach the runtime that holds the channel to the warden: list and take
 * its fds, read its environment, pidfd_getfd (perl's syscall, where perl exists and the pid means the same to
 * it). Prints the target and one line per way that worked.
 */
const reachProbe = (pattern: string) =>
  `${FIND_PID}; ${SAME_PID_NS}; P=$(find_pid ${pattern}); echo target=$P; ` +
  `readlink /proc/$P/fd/0 >/dev/null 2>&1 && echo REACH fds; ` +
  `head -c 1 /proc/$P/environ >/dev/null 2>&1 && echo REACH environ; ` +
  `[ "$samens" = 1 ] && command -v perl >/dev/null && perl -e 'my $p=syscall(434,$ARGV[0],0); exit 1 if $p<0; exit(syscall(438,$p,0,0)<0)' $P && echo REACH pidfd_getfd; true`;

export const PROTOCOL_ATTEMPTS: EscapeAttempt[] = [
  {
    name: "send an oversize or garbage frame",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: false,
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
      return {
        contained: guestSurvived && exit !== undefined && /channel lost/.test(exit.reason),
        evidence: `guest answered ${errors.join(", ")} and kept serving; after the guest's garbage the host ${exit ? `ended the cell (${exit.reason})` : "kept it"}`,
        controlDetected: errors.includes("malformed_frame") && errors.includes("frame_too_large"),
        control: "the guest's Error answers show both frames arrived",
      };
    },
  },
  {
    name: "flood the warden with bad frames between valid ones, without reading",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: false,
    exhausts: true,
    async run(scene) {
      const cell = scene.cell();
      const before = process.memoryUsage().rss;
      const badBefore = cell.peer.stats.badFramesIn;
      void cell.call({ type: "UserMessage", text: "!flood 20000 4000" }).catch(() => undefined);
      const exit = await Promise.race([
        cell.exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 60_000)),
      ]);
      const grownMiB = (process.memoryUsage().rss - before) / 1048576;
      const { badFramesIn, answersDropped } = cell.peer.stats;
      return {
        contained: exit !== undefined && /bad frames within/.test(exit.reason) && grownMiB < 64,
        evidence: `host ended the cell: ${exit?.reason ?? "no"}; ${badFramesIn - badBefore} bad frames counted, ${answersDropped} answers dropped; warden RSS grew ${grownMiB.toFixed(1)} MiB`,
        controlDetected: badFramesIn > badBefore,
        control: `${badFramesIn - badBefore} of the guest's bad frames reached the host`,
      };
    },
  },
  {
    name: "forge a msg_id far ahead to wedge the channel",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: false,
    async run(scene) {
      const cell = scene.cell();
      const badBefore = cell.peer.stats.badFramesIn;
      const forged = encodeFrame({
        type: "Heartbeat",
        user_id: cell.userId,
        session_id: "cell",
        msg_id: Number.MAX_SAFE_INTEGER,
        timestamp: new Date().toISOString(),
      });
      await cell
        .call({ type: "UserMessage", text: `!raw ${forged.toString("base64")}` })
        .catch(() => undefined);
      const served = await Promise.all([answers(cell), answers(cell), shellIn(cell, "echo still here")]);
      return {
        contained: served[0] && served[1] && served[2].stdout === "still here\n" && !cell.peer.isClosed,
        evidence: `after a Heartbeat with msg_id ${Number.MAX_SAFE_INTEGER} the cell ${served[0] && served[1] ? "kept answering" : "stopped answering"}`,
        controlDetected: cell.peer.stats.badFramesIn > badBefore,
        control: "the host refused the forged frame (counted as bad)",
      };
    },
  },
  {
    name: "take the runtime's channel from a tool process",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      // The runtime is the one node process given a channel, however it started (modules, bundle or snapshot).
      const out = await shellIn(scene.cell(), reachProbe("--channel"));
      // Control: the same probe against a process this tool started itself reaches it every way it can.
      const marker = `reach-control-${process.pid}`;
      const control = await shellIn(
        scene.cell(),
        `node -e 'setTimeout(()=>{},30000)' ${marker} & sleep 1; ${reachProbe(marker)}; kill $!`,
      );
      const target = /target=(\d*)/.exec(out.stdout)?.[1] ?? "";
      const ways = out.stdout.match(/REACH \S+/g) ?? [];
      const controlWays = control.stdout.match(/REACH \S+/g) ?? [];
      return {
        contained: target !== "" && ways.length === 0,
        evidence: `runtime pid ${target || "not found"}: ${ways.join(", ") || "unreachable (fds, environ, pidfd_getfd)"}`,
        controlDetected: controlWays.length >= 2,
        control: `a sibling process: ${controlWays.join(", ")}`,
      };
    },
  },
];
