import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { answers, shellIn } from "./cell-shell.js";
import type { EscapeAttempt } from "./escape-scene.js";

/** Counts the cell user's processes (uid 1000 in every backend), not the guest kernel's threads. */
const COUNT_CELL_PROCESSES = `grep -l '^Uid:[[:space:]]*1000[[:space:]]' /proc/[0-9]*/status 2>/dev/null | wc -l`;

/**
 * Writes files of `fileMiB` into `dir` until a write fails or `files` are written, holds them for `holdS`
 * seconds (a checked quota needs a moment to see them), prints the total MiB, removes them.
 */
const fillProbe = (dir: string, fileMiB: number, files: number, tag: string, holdS = 0) =>
  `i=0; while [ $i -lt ${files} ]; do dd if=/dev/zero of=${dir}/fill$i bs=1M count=${fileMiB} 2>/dev/null || break; i=$((i+1)); done; ` +
  `sleep ${holdS}; echo ${tag}=$(du -cm ${dir}/fill* 2>/dev/null | tail -n 1 | cut -f1); rm -f ${dir}/fill*`;

/** The last number a probe printed, or NaN when it printed none (the probe did not run). */
const numberAfter = (tag: string, text: string) =>
  Number(new RegExp(`${tag}=(\\d+)`).exec(text)?.[1] ?? "NaN");

export const EXHAUSTION_ATTEMPTS: EscapeAttempt[] = [
  {
    name: "fork bomb",
    harmsUnisolatedHost: true,
    leaksWithoutIsolation: true,
    exhausts: true,
    async run(scene) {
      // Control: with 20 sleepers of its own running, the same count sees at least 20.
      const control = await shellIn(
        scene.cell(),
        `for i in $(seq 20); do sleep 5 & done; ${COUNT_CELL_PROCESSES}; kill $(jobs -p) 2>/dev/null`,
      );
      const counted = Number(control.stdout.trim().split("\n").pop());
      const out = await shellIn(
        scene.cell(),
        `(bomb() { bomb | bomb & }; bomb) >/dev/null 2>&1 & sleep 4; ${COUNT_CELL_PROCESSES}`,
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
        controlDetected: counted >= 20,
        control: `20 sleepers counted as ${counted}`,
      };
    },
  },
  {
    name: "fill the disk with many files",
    harmsUnisolatedHost: true,
    leaksWithoutIsolation: true,
    exhausts: true,
    async run(scene) {
      const { brainFileMiB, brainMiB, workspaceMiB } = scene.caps;
      const files = Math.ceil(brainMiB / brainFileMiB) + 3;
      const cell = scene.cell();
      const control = await shellIn(cell, fillProbe("/mnt/brain", 1, 1, "one"));
      const workspace = await shellIn(cell, fillProbe("/tmp/workspace", workspaceMiB, 3, "work"));
      // A checked quota may stop the cell during this call, taking its answer with it.
      const reply = await shellIn(
        cell,
        `${fillProbe("/mnt/brain", brainFileMiB, files, "brain", 3)}; sync`,
      ).catch((error: Error) => ({ stdout: "", stderr: error.message }));
      const brain = numberAfter("brain", reply.stdout);
      const work = numberAfter("work", workspace.stdout);
      // A directory brain (no root) has a checked quota: the warden stops a cell that passes it, and the files
      // stay until someone removes them (here the test, as the owner would).
      const exit = await Promise.race([
        cell.exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
      ]);
      const stoppedForQuota = exit?.reason.includes("quota") === true;
      if (stoppedForQuota) await removeFills(scene.inmateBrainHostPath);
      return {
        contained: (stoppedForQuota || brain <= brainMiB + 1) && work <= workspaceMiB + 1,
        evidence: `${files} files of ${brainFileMiB} MiB: brain took ${brain} MiB (quota ${brainMiB}), workspace ${work} MiB (quota ${workspaceMiB})${stoppedForQuota ? `; ${exit?.reason}` : ""}`,
        controlDetected: numberAfter("one", control.stdout) === 1,
        control: `a 1 MiB file measured as ${numberAfter("one", control.stdout)} MiB`,
      };
    },
  },
  {
    name: "write into /dev and fill /dev/shm",
    harmsUnisolatedHost: true,
    leaksWithoutIsolation: true,
    exhausts: true,
    async run(scene) {
      const tag = `ironclaw-dev-${process.pid}`;
      const out = await shellIn(
        scene.cell(),
        `(echo x > /dev/${tag}) 2>/dev/null && echo WROTE; rm -f /dev/${tag}; ${fillProbe("/dev/shm", 1024, 4, "shm")}`,
      );
      const shm = numberAfter("shm", out.stdout);
      // Control: the same fill of a place that is writable measures what it wrote.
      const control = await shellIn(scene.cell(), fillProbe("/tmp/workspace", 1, 1, "one"));
      return {
        contained: !out.stdout.includes("WROTE") && (Number.isNaN(shm) || shm <= scene.caps.shmMiB + 1),
        evidence: `${out.stdout.includes("WROTE") ? "created a file in /dev" : "/dev refused a new file"}; /dev/shm took ${Number.isNaN(shm) ? "nothing (absent)" : `${shm} MiB`} (cap ${scene.caps.shmMiB})`,
        controlDetected: numberAfter("one", control.stdout) === 1,
        control: `1 MiB into the workspace measured as ${numberAfter("one", control.stdout)} MiB`,
      };
    },
  },
  {
    name: "allocate past the memory limit",
    harmsUnisolatedHost: true,
    leaksWithoutIsolation: true,
    exhausts: true,
    async run(scene) {
      // Progress goes to a file in the cell's /tmp as well: an OOM kill may take the whole tool call with it.
      const alloc = (cap: number) =>
        `rm -f /tmp/reached; node -e 'const fs=require("fs");const a=[];let n=0;for(;n<${cap};){try{a.push(Buffer.alloc(16<<20,1));n+=16;fs.writeFileSync("/tmp/reached",String(n))}catch(e){console.log("refused at",n);break}}' 2>&1 | tail -n 1; cat /tmp/reached`;
      const cell = scene.cell();
      const control = await shellIn(cell, alloc(32));
      // A microVM under memory pressure may stop answering altogether; the host then ends it, which holds the
      // allocation inside the VM's own RAM just as well.
      const out = await shellIn(cell, alloc(1 << 20)).catch((error: Error) => ({
        stdout: "",
        stderr: error.message,
      }));
      const exit = await Promise.race([
        cell.exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
      ]);
      // The last size reached before the allocation was refused or the process was killed.
      const last = out.stdout.trim() || (exit ? "" : (await shellIn(cell, "cat /tmp/reached")).stdout.trim());
      const reached = Number(/(\d+)\s*$/.exec(last)?.[1] ?? "NaN");
      const stillServing = await answers(scene.bystander());
      // One process meets whichever comes first: its own data limit or the whole cell's memory limit.
      const { memoryMiB, cellMemoryMiB } = scene.caps;
      const bound = Math.min(memoryMiB, cellMemoryMiB ?? Number.POSITIVE_INFINITY);
      const caps = `process limit ${memoryMiB} MiB, cell limit ${cellMemoryMiB === undefined ? "none on this host" : `${cellMemoryMiB} MiB`}`;
      return {
        // NaN (nothing recorded) fails the bound too: an allocation that was never seen is no evidence.
        contained: (exit !== undefined || reached <= bound + 64) && stillServing,
        evidence: exit
          ? `the cell stopped answering and the host ended it (${exit.reason})`
          : `allocation stopped at ${reached} MiB (${caps})${/refused at/.test(last) ? ", refused" : ", the process killed"}`,
        controlDetected: /^32$/.test(control.stdout.trim()),
        control: `a 32 MiB allocation reached ${control.stdout.trim()}`,
      };
    },
  },
  {
    name: "hold more memory than the cell may, across many processes",
    harmsUnisolatedHost: true,
    leaksWithoutIsolation: true,
    exhausts: true,
    async run(scene) {
      const cap = scene.caps.cellMemoryMiB;
      // Well under the per-process limit, so the per-process limit is never what stops a holder, and a quarter of
      // the cell's, so one holder (its share plus node itself) fits in what the cell has free: a microVM of 256 MiB
      // has ~140 MiB free, where holders of 128 MiB were each killed before any could report.
      const per = Math.min(Math.floor(scene.caps.memoryMiB / 2), 192, Math.floor((cap ?? 512) / 4));
      const count = Math.ceil(((cap ?? 512) * 1.5) / per);
      // Each holder allocates its share, notes it in a file, and holds it; the sum is what the cell held at once.
      const holder = `node -e 'const a=[];for(let n=0;n<${per};n+=16)a.push(Buffer.alloc(16<<20,1));require("fs").appendFileSync("/tmp/held","x");setTimeout(()=>{},30000)'`;
      // Control first, while the cell surely answers: one process's 32 MiB is measured as 32.
      const control = await shellIn(
        scene.cell(),
        `node -e 'const a=[];for(let n=0;n<32;n+=16)a.push(Buffer.alloc(16<<20,1));console.log(a.length*16)'`,
      );
      // Wait for the first holder (slow under emulation: up to 150 s, in one call, since a call's processes end
      // with it), give the others a moment, then sum anonymous memory only: node's code pages are shared file
      // pages, counted once by the kernel but in every VmRSS. A microVM under this much pressure may stop
      // answering altogether; the host then ends it, which holds the memory inside the VM's own RAM just as well.
      const out = await shellIn(
        scene.cell(),
        `!wait 200 rm -f /tmp/held; for i in $(seq ${count}); do (${holder} 2>/dev/null &); done; ` +
          "for i in $(seq 300); do [ -s /tmp/held ] && break; sleep 0.5; done; sleep 3; " +
          `s=0; for v in $(grep -h '^RssAnon' /proc/[0-9]*/status 2>/dev/null | tr -dc '0-9\\n'); do s=$((s+v)); done; ` +
          "echo rss=$((s/1024)) held=$(wc -c < /tmp/held 2>/dev/null || echo 0)",
        240_000,
      ).catch((error: Error) => ({ stdout: "", stderr: error.message, failed: true }));
      // A lost channel ends the cell a moment later (child-cell.ts); anything else that failed leaves it running.
      const exit =
        "failed" in out
          ? await Promise.race([
              scene.cell().exited,
              new Promise<undefined>((r) => setTimeout(() => r(undefined), 10_000)),
            ])
          : undefined;
      const held = (numberAfter("held", out.stdout) || 0) * per;
      const rss = numberAfter("rss", out.stdout);
      const stillServing = await answers(scene.bystander());
      await scene.cell().stop({ timeoutMs: 5_000 });
      const controlHeld = control.stdout.trim() === "32";
      return {
        contained: (exit !== undefined || (cap !== undefined && rss <= cap + 64)) && stillServing,
        evidence: exit
          ? `${count} processes of ${per} MiB: the cell stopped answering and the host ended it (${exit.reason})`
          : `${count} processes of ${per} MiB: ${held} MiB reported held, ${rss} MiB resident in the cell at once (cell limit ${cap ?? "not enforceable on this host"})`,
        // Where the cell answered, at least one holder must have reported its share: the flood really ran.
        controlDetected: controlHeld && (exit !== undefined || held >= per),
        control: `a 32 MiB allocation measured as ${control.stdout.trim()}${exit ? "" : `; at least one holder reported its ${per} MiB`}`,
      };
    },
  },
];

/** The fill files a stopped cell left in its (directory) brain on the host. */
async function removeFills(brainDir: string): Promise<void> {
  for (const name of await readdir(brainDir).catch(() => [] as string[])) {
    if (/^fill\d+$/.test(name)) await rm(join(brainDir, name), { force: true });
  }
}
