// `ironclaw verify` over a large evidence folder: verifyEvidence against the bare cost of reading and hashing
// the same files (the public key, every certificate, proof and node), in the same run, so the ratio is what
// verification adds over I/O and sha256.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyEvidence } from "../../src/attest/index.js";
import { percentile } from "../percentile.js";
import { VERIFIED_PARTS, writeTurnEvidence } from "./evidence-folder.js";

interface Spread {
  p50: number;
  min: number;
  max: number;
}

export interface VerifyThroughput {
  certificates: number;
  files: number;
  bytes: number;
  generateSeconds: number;
  /** Median and spread of whole passes, in ms of wall time and of this process's CPU time. */
  verifyMs: Spread;
  readHashMs: Spread;
  verifyCpuMs: Spread;
  readHashCpuMs: Spread;
  certificatesPerSecond: number;
  ratio: number;
}

/** `verify` is the product's verifyEvidence; another build's can be passed to compare two in one run. */
export function measureVerifyThroughput(
  certificates: number,
  passes: number,
  verifyFolder: typeof verifyEvidence = verifyEvidence,
): VerifyThroughput {
  const base = mkdtempSync(join(tmpdir(), "ironclaw-bench-attest-"));
  try {
    const dir = join(base, "evidence");
    const started = performance.now();
    const at = writeTurnEvidence(join(base, "home"), dir, certificates);
    const generateSeconds = (performance.now() - started) / 1000;
    let files = 0;
    let bytes = 0;
    const readAndHash = () => {
      files = 0;
      bytes = 0;
      const digest = (file: string) => {
        const data = readFileSync(file);
        createHash("sha256").update(data).digest("hex");
        files++;
        bytes += data.length;
      };
      digest(join(dir, "public-key.pem"));
      for (const part of VERIFIED_PARTS)
        for (const name of readdirSync(join(dir, part)).sort()) digest(join(dir, part, name));
    };
    const verify = () => {
      const report = verifyFolder(dir, { at });
      if (!report.ok || report.certificates.length !== certificates)
        throw new Error(`verify failed on a generated folder: ${JSON.stringify(report.chain)}`);
    };
    // One untimed pass each: the page cache and the JIT warm, as for every later pass.
    readAndHash();
    verify();
    const times = { verify: [] as number[], readHash: [] as number[] };
    const cpu = { verify: [] as number[], readHash: [] as number[] };
    for (let i = 0; i < passes; i++) {
      for (const [name, fn] of [
        ["readHash", readAndHash],
        ["verify", verify],
      ] as const) {
        const t = performance.now();
        const c = process.cpuUsage();
        fn();
        const used = process.cpuUsage(c);
        times[name].push(performance.now() - t);
        cpu[name].push((used.user + used.system) / 1000);
      }
    }
    const stats = (s: number[]) => ({ p50: percentile(s, 50), min: Math.min(...s), max: Math.max(...s) });
    const verifyMs = stats(times.verify);
    const readHashMs = stats(times.readHash);
    return {
      certificates,
      files,
      bytes,
      generateSeconds,
      verifyMs,
      readHashMs,
      verifyCpuMs: stats(cpu.verify),
      readHashCpuMs: stats(cpu.readHash),
      certificatesPerSecond: certificates / (verifyMs.p50 / 1000),
      ratio: verifyMs.p50 / readHashMs.p50,
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
