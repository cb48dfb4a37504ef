import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, IronclawError } from "../../core/index.js";
import { writeDurably } from "../store/index.js";

/** The pipeline's files in a state directory, exactly as seed 004's "Local Audit Surface" names them. */
export const PIPELINE_FILES = {
  evolutionReport: "reports/latest_evolution_report.json",
  governanceJson: "reports/latest_governance_report.json",
  governanceMd: "reports/latest_governance_report.md",
  operatorReview: "reports/latest_operator_review.json",
  promotionArtifact: "reports/latest_promotion_artifact.json",
  workflowState: "latest_workflow_state.json",
  workflowHistory: "workflow_history.jsonl",
} as const;

export type PipelineFile = keyof typeof PIPELINE_FILES;

export class PipelineFiles {
  constructor(readonly stateDir: string) {}

  /** The lock every step holds while it reads and rewrites the queue (not a seed file: hidden, like the store's). */
  lockPath(): string {
    return join(this.stateDir, ".pipeline.lock");
  }

  path(file: PipelineFile): string {
    return join(this.stateDir, PIPELINE_FILES[file]);
  }

  /** A JSON file written whole: a reader (or a restart) sees the old version or the new one, never part of one. */
  writeJson(file: PipelineFile, value: unknown): string {
    return this.writeText(file, `${canonicalJson(value)}\n`);
  }

  writeText(file: PipelineFile, text: string): string {
    const path = this.path(file);
    writeDurably(path, Buffer.from(text, "utf8"));
    return path;
  }

  readJson<T>(file: PipelineFile): T | undefined {
    const path = this.path(file);
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(readFileSync(path, "utf8")) as T;
    } catch (cause) {
      throw new IronclawError("internal", `${path} is not JSON; the file is damaged`, { cause });
    }
  }

  /**
   * The history's complete lines. A line without its newline was cut off by a crash mid-append; it is left out
   * and overwritten by the next append, which starts where the complete lines end.
   */
  readHistory<T>(): { entries: T[]; end: number } {
    const path = this.path("workflowHistory");
    if (!existsSync(path)) return { entries: [], end: 0 };
    const text = readFileSync(path, "utf8");
    const end = text.lastIndexOf("\n") + 1;
    const lines = text
      .slice(0, end)
      .split("\n")
      .filter((l) => l !== "");
    return {
      entries: lines.map((l) => JSON.parse(l) as T),
      end: Buffer.byteLength(text.slice(0, end), "utf8"),
    };
  }

  /** Appends one history line in one write at the end of the complete lines, then fsyncs. */
  appendHistory(value: unknown, end: number): void {
    const fd = openSync(this.path("workflowHistory"), existsSync(this.path("workflowHistory")) ? "r+" : "w");
    try {
      ftruncateSync(fd, end);
      const bytes = Buffer.from(`${canonicalJson(value)}\n`, "utf8");
      let written = 0;
      while (written < bytes.length)
        written += writeSync(fd, bytes, written, bytes.length - written, end + written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
