import { shellIn } from "./cell-shell.js";
import { type EscapeAttempt, reversed, unreverse } from "./escape-scene.js";

/** Counts live processes whose command line holds the reversed marker given as $1 (turned back at run time). */
const countMarked = (marker: string) =>
  `${unreverse("M", marker)}; n=0; for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' 2>/dev/null < $p/cmdline)" in "node "*"$M"*) n=$((n+1));; esac; done; echo alive=$n`;

/** Prints every readable command line and environment of the cell's processes that holds one of the paths. */
const hostPathProbe = (paths: string[]) =>
  `node -e 'const fs=require("fs");const needles=process.argv.slice(1).map((p)=>p.split("").reverse().join(""));` +
  `let found=[];for(const p of fs.readdirSync("/proc").filter((p)=>/^\\d+$/.test(p))){for(const f of ["cmdline","environ"]){` +
  `let t="";try{t=fs.readFileSync("/proc/"+p+"/"+f,"utf8")}catch{continue}` +
  `for(const n of needles)if(t.includes(n))found.push(p+"/"+f+": "+n)}}console.log(found.length?found.join("\\n"):"none")' ${paths.map((p) => `'${reversed(p)}'`).join(" ")}`;

/**
 * The runtime's package root as its command line names it (src/ or dist/ modules, the bundle in dist/cell, or
 * a startup snapshot beside it), and what that directory holds: the first runtime the cell can see whose package
 * is there, since without isolation it sees other cells' runtimes too, whose /opt/ironclaw exists only inside
 * their own namespace.
 */
const PACKAGE_PROBE =
  `for p in /proc/[0-9]*; do c=$(tr '\\0' '\\n' < $p/cmdline 2>/dev/null | grep -m1 -E '/((src|dist)/inmate/irowclaw\\.(ts|js)|dist/cell/(irowclaw\\.cjs|runtime\\.[^/]+\\.blob))$'); ` +
  `[ -n "$c" ] && { case $c in */dist/cell/*) root=\${c%/dist/cell/*};; *) root=\${c%/*/inmate/irowclaw.*};; esac; ` +
  `[ -d "$root" ] || continue; echo root=$root; ls -a $root; break; }; done`;

export const BOUNDARY_ATTEMPTS: EscapeAttempt[] = [
  {
    name: "leave a setsid daemon running after the tool call",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: false,
    async run(scene) {
      const marker = `ironclaw-daemon-${process.pid}-${Date.now()}`;
      const daemon = `node -e 'setTimeout(()=>{},60000)' "$M"`;
      // Control: inside the call that starts them, the same count sees both daemons alive. (Two setsid
      // daemons: busybox, the microVM's tools, has no nohup.)
      const started = await shellIn(
        scene.cell(),
        `${unreverse("M", marker)}; (setsid ${daemon} >/dev/null 2>&1 &); (setsid ${daemon} >/dev/null 2>&1 &); sleep 2; ${countMarked(marker)}`,
      );
      const after = await shellIn(scene.cell(), countMarked(marker));
      const during = Number(/alive=(\d+)/.exec(started.stdout)?.[1] ?? "NaN");
      const left = Number(/alive=(\d+)/.exec(after.stdout)?.[1] ?? "NaN");
      return {
        contained: left === 0,
        evidence: `${left} of the call's daemons still alive after it returned`,
        controlDetected: during === 2,
        control: `${during} alive while the call ran`,
      };
    },
  },
  {
    name: "find host paths in the cell's command lines and environments",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const out = await shellIn(scene.cell(), hostPathProbe(scene.hostPaths));
      // Control: a process of the cell's own, given a host path in its arguments, is found by the same probe.
      const planted = scene.hostPaths[0] ?? "/";
      const control = await shellIn(
        scene.cell(),
        `${unreverse("H", planted)}; node -e 'setTimeout(()=>{},30000)' "$H" & sleep 1; ${hostPathProbe([planted])}; kill $!`,
      );
      return {
        contained: out.stdout.trim() === "none",
        evidence: out.stdout.trim().split("\n").slice(0, 4).join("; "),
        controlDetected: control.stdout.includes(planted),
        control: `a planted argument found: ${control.stdout.trim().split("\n")[0]}`,
      };
    },
  },
  {
    name: "read the repository, tests and sources through the runtime's package",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const out = await shellIn(scene.cell(), PACKAGE_PROBE);
      const entries = out.stdout.split("\n").slice(1).filter(Boolean);
      const exposed = entries.filter((e) => [".git", "test", "bench", "scripts", "ui", ".ci"].includes(e));
      return {
        contained: exposed.length === 0,
        evidence: `${/root=(.*)/.exec(out.stdout)?.[1] ?? "?"} holds ${entries.filter((e) => !e.startsWith(".") || e.length > 2).join(" ")}`,
        // Control: the same listing finds what the runtime must have there.
        controlDetected: entries.includes("package.json") && entries.includes("node_modules"),
        control: "the listing found package.json and node_modules",
      };
    },
  },
  {
    name: "grant itself capabilities by replacing config/",
    harmsUnisolatedHost: false,
    leaksWithoutIsolation: true,
    async run(scene) {
      const cell = scene.cell();
      const original = await cell.call({ type: "FileOpRequest", op: "read", path: "config/irowclaw.toml" });
      const before = original.type === "FileOpResult" ? (original.content ?? "") : "";
      const grant = `default_agent = "escaped"\n`;
      const attack = (dir: string, file: string) =>
        `mv ${dir} ${dir}.old 2>/dev/null && mkdir ${dir}; echo '${grant.trim()}' >> ${dir}/${file} 2>/dev/null; ` +
        `grep -q escaped ${dir}/${file} 2>/dev/null && echo GRANTED ${dir}`;
      const out = await shellIn(cell, attack("config", "irowclaw.toml"));
      const after = await cell.call({ type: "FileOpRequest", op: "read", path: "config/irowclaw.toml" });
      const now = after.type === "FileOpResult" ? (after.content ?? "") : "";
      // Control: the same moves and writes succeed on a directory that grants nothing.
      const control = await shellIn(cell, `mkdir -p notes && touch notes/x.md; ${attack("notes", "x.md")}`);
      // Put things back where a leak happened (the process backend), so later attempts start from a sane brain.
      await shellIn(
        cell,
        "[ -d config.old ] && rm -rf config && mv config.old config; rm -rf notes notes.old; true",
      );
      return {
        contained: !out.stdout.includes("GRANTED") && now === before,
        evidence: out.stdout.trim() || "config/ could be neither moved nor written",
        controlDetected: control.stdout.includes("GRANTED notes"),
        control: `on notes/: ${control.stdout.trim()}`,
      };
    },
  },
];
