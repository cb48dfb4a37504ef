// Provenance benchmark: `node --import tsx bench/attest/run.ts [turns] [certificates] [passes]` (default 100 10000 3).
// (a) What a certified chat turn costs: the turn as its user sees it with brain history and certificates against
// the same turn without them, and the host's wall and CPU time per turn for the record and the certificate,
// measured off the reply path. (b) `ironclaw verify` over an evidence folder of that many certificates with
// proofs and a node chain, against reading and hashing the same files: certificates per second and the overhead.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatTable } from "../agent/timing.js";
import { measureCertification } from "./chat-turns.js";
import { measureVerifyThroughput } from "./verify-throughput.js";

const TURNS = Number(process.argv[2] ?? 100);
const CERTIFICATES = Number(process.argv[3] ?? 10_000);
const PASSES = Number(process.argv[4] ?? 3);

const cost = await measureCertification(TURNS);
if (!cost.verified) throw new Error("a certified user's evidence folder did not pass verify");
const ms = (n: number) => n.toFixed(2);
const ratio = (a: number, b: number) => `${(a / (b || 1)).toFixed(2)}×`;
const { plain, certified, recordedAtOnce } = cost.turn;
console.log(
  `\n${formatTable(
    ["chat turn as the user sees it (ms)", "p50", "p95", "p99", "p50 ÷ plain"],
    [
      ["no history, no certificates", ms(plain.p50), ms(plain.p95), ms(plain.p99), "1.00×"],
      [
        "history + certificates (daemon's wiring)",
        ms(certified.p50),
        ms(certified.p95),
        ms(certified.p99),
        ratio(certified.p50, plain.p50),
      ],
      [
        "history recorded at once, certificate held",
        ms(recordedAtOnce.p50),
        ms(recordedAtOnce.p95),
        ms(recordedAtOnce.p99),
        ratio(recordedAtOnce.p50, plain.p50),
      ],
    ],
  )}\n`,
);
console.log(
  `${formatTable(
    ["host work per turn, off the reply path (ms)", "wall p50", "wall p95", "CPU p50", "CPU p95", "CPU mean"],
    [
      [
        "brain record (read brain, git; git's own CPU apart)",
        ms(cost.history.wallMs.p50),
        ms(cost.history.wallMs.p95),
        ms(cost.history.cpuMs.p50),
        ms(cost.history.cpuMs.p95),
        `${ms(cost.history.cpuMs.mean)} + git ${ms(cost.history.childCpuMsMean)}`,
      ],
      [
        "certificate (hash, sign, node + evidence writes)",
        ms(cost.certificate.wallMs.p50),
        ms(cost.certificate.wallMs.p95),
        ms(cost.certificate.cpuMs.p50),
        ms(cost.certificate.cpuMs.p95),
        ms(cost.certificate.cpuMs.mean),
      ],
    ],
  )}\n`,
);

const verify = measureVerifyThroughput(CERTIFICATES, PASSES);
console.log(
  `${formatTable(
    [
      `${CERTIFICATES} certificates (${verify.files} files, ${(verify.bytes / 1e6).toFixed(1)} MB)`,
      "wall p50 ms",
      "CPU p50 ms",
      "certificates/s",
      "ratio",
    ],
    [
      [
        "read + sha256 every file",
        verify.readHashMs.p50.toFixed(0),
        verify.readHashCpuMs.p50.toFixed(0),
        (CERTIFICATES / (verify.readHashMs.p50 / 1000)).toFixed(0),
        "1.00×",
      ],
      [
        "verifyEvidence (ironclaw verify)",
        verify.verifyMs.p50.toFixed(0),
        verify.verifyCpuMs.p50.toFixed(0),
        verify.certificatesPerSecond.toFixed(0),
        `${verify.ratio.toFixed(2)}×`,
      ],
    ],
  )}\n(generating the folder, untimed: ${verify.generateSeconds.toFixed(1)} s)\n`,
);

const results = { node: process.version, turns: TURNS, certification: cost, verify };
await mkdir(join(import.meta.dirname, "../results"), { recursive: true });
const out = join(
  import.meta.dirname,
  "../results",
  `attest-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`,
);
await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${out}`);
