// npm run bench:suite [-- --baseline <commit>] [--runs N]: the default suite's wall time at this checkout against
// the same suite at an earlier commit, on this machine, one after the other, and the ratio. The baseline runs in
// a git worktree of that commit (its node_modules linked to this one's, its dist/ built with its own build), so
// both sides run their own tests against their own code. The default baseline is the last commit before the suite
// moved the warden's logic onto in-memory cells and stopped re-importing modules per file. Results go nowhere but stdout: a suite that fails is
// said, and its time is still a time.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../../src/cells/index.js";

const { values } = parseArgs({
  options: {
    baseline: { type: "string", default: "29a0e16" },
    runs: { type: "string", default: "1" },
  },
});
const runs = Math.max(1, Number(values.runs));

function git(args: string[], cwd = PACKAGE_ROOT): string {
  const out = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (out.status !== 0) throw new Error(`git ${args.join(" ")}: ${out.stderr.trim()}`);
  return out.stdout.trim();
}

/** Runs the default suite in `dir` and returns its wall time and outcome; its output goes to a log file. */
function suite(dir: string, label: string): Promise<{ seconds: number; ok: boolean; log: string }> {
  const log = join(tmpdir(), `ironclaw-bench-suite-${label}-${Date.now()}.log`);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", `npx vitest run > '${log}' 2>&1`], { cwd: dir, stdio: "ignore" });
    child.on("exit", (code) =>
      resolve({ seconds: (performance.now() - started) / 1000, ok: code === 0, log }),
    );
  });
}

const base = git(["rev-parse", "--short", values.baseline]);
const worktree = mkdtempSync(join(tmpdir(), "ironclaw-bench-baseline-"));
rmSync(worktree, { recursive: true });
git(["worktree", "add", "--detach", worktree, base]);
try {
  symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(worktree, "node_modules"));
  if (existsSync(join(PACKAGE_ROOT, "ui/dist")))
    symlinkSync(join(PACKAGE_ROOT, "ui/dist"), join(worktree, "ui/dist"));
  // The baseline's own compiled code and cell bundle, which some of its tests start cells from.
  const built = spawnSync("sh", ["-c", "npx tsc -p tsconfig.build.json && node scripts/build-cell.mjs"], {
    cwd: worktree,
    stdio: "ignore",
  });
  if (built.status !== 0) throw new Error(`the baseline ${base} did not build`);
  const rows: string[] = [];
  const times = { base: [] as number[], head: [] as number[] };
  for (let i = 0; i < runs; i++) {
    for (const [label, dir] of [
      ["base", worktree],
      ["head", PACKAGE_ROOT],
    ] as const) {
      const load = loadavg()[0]?.toFixed(2);
      const result = await suite(dir, label);
      times[label].push(result.seconds);
      rows.push(
        `${label === "base" ? `baseline ${base}` : `this checkout ${git(["rev-parse", "--short", "HEAD"])}`}: ${result.seconds.toFixed(0)} s` +
          ` (load ${load} at its start; ${result.ok ? "passed" : `FAILED, see ${result.log}`})`,
      );
      console.log(rows.at(-1));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const ratio = median(times.base) / median(times.head);
  console.log(
    `\nnpm test, median of ${runs}: baseline ${median(times.base).toFixed(0)} s, now ${median(times.head).toFixed(0)} s — ${ratio.toFixed(2)}× faster`,
  );
} finally {
  git(["worktree", "remove", "--force", worktree]);
}
