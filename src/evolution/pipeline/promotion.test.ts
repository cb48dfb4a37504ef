import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { seededState } from "../../../test/evolution/pipeline-state.js";
import { initBrain } from "../../memory/index.js";
import { EvolutionStore } from "../store/index.js";
import { BrainFileApplier } from "./brain-file-applier.js";
import { EvolutionPipeline } from "./evolution-pipeline.js";
import { PIPELINE_FILES } from "./pipeline-files.js";
import type { PromotionApplier } from "./promotion-applier.js";
import type { WorkflowStep } from "./workflow.js";

let stateDir: string;
let brainDir: string;
let pipeline: EvolutionPipeline;
let applier: BrainFileApplier;
let ids: Record<string, string>;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 14, 9, 0, clock++));
const ada = { operator: "ada" };

beforeEach(async () => {
  const seeded = seededState();
  stateDir = seeded.stateDir;
  pipeline = new EvolutionPipeline(seeded.store, { now });
  brainDir = join(mkdtempSync(join(tmpdir(), "ironclaw-promotion-brain-")), "brain");
  await initBrain(brainDir);
  applier = new BrainFileApplier(brainDir);
  ids = Object.fromEntries(pipeline.view().evolution.proposals.map((p) => [p.subject, p.proposal_id]));
});

const skillFile = () => join(brainDir, "instructions", "skill-deploy_helper.md");
const capabilitiesFile = () => join(brainDir, "instructions", "capabilities.md");
const statusOf = (p: EvolutionPipeline, subject: string) =>
  p.view().queue.entries.find((e) => e.subject === subject)?.status;

describe("review, promote and roll back against a real brain directory", () => {
  it("promotes approved proposals only, writing the exact text the artifact lists, and rolls one back", async () => {
    await pipeline.review(ids.deploy_helper as string, "approve", { ...ada, reason: "every deploy failed" });
    await pipeline.review(ids["database migrations"] as string, "approve", ada);
    await pipeline.review(ids.code_review as string, "reject", { ...ada, reason: "too vague" });

    const dry = await pipeline.promote({ applier, dryRun: true, operator: "ada" });
    expect(dry.changes.map((c) => [c.subject, c.outcome])).toEqual([
      ["database migrations", "would_apply"],
      ["deploy_helper", "would_apply"],
    ]);
    expect(existsSync(skillFile())).toBe(false);

    const done = await pipeline.promote({ applier, dryRun: false, operator: "ada" });
    expect(done.changes.map((c) => c.outcome)).toEqual(["applied", "applied"]);
    for (const change of done.changes) {
      expect(readFileSync(join(brainDir, change.path), "utf8")).toBe(change.after);
      expect(change.before).toBeNull();
    }
    expect(readFileSync(skillFile(), "utf8")).toMatch(
      /^# Skill: deploy_helper\n[\s\S]*\n- Sessions that used deploy_helper/,
    );
    expect(readFileSync(capabilitiesFile(), "utf8")).toContain('missing: "database migrations".');
    const artifact = JSON.parse(readFileSync(join(stateDir, PIPELINE_FILES.promotionArtifact), "utf8"));
    expect(artifact).toEqual(done);

    // A new pipeline over the reopened state directory (a restart) sees the same queue.
    const restarted = new EvolutionPipeline(EvolutionStore.open(stateDir), { now });
    expect(statusOf(restarted, "deploy_helper")).toBe("promoted");
    expect(statusOf(restarted, "code_review")).toBe("rejected");

    await restarted.rollback(ids.deploy_helper as string, { applier, operator: "ada", reason: "noisy" });
    expect(existsSync(skillFile())).toBe(false);
    expect(statusOf(restarted, "deploy_helper")).toBe("rolled_back");
    await expect(restarted.rollback(ids.deploy_helper as string, { applier, ...ada })).rejects.toThrow(
      `proposal ${ids.deploy_helper} is rolled_back, not promoted: there is nothing to roll back`,
    );

    const history = readFileSync(join(stateDir, PIPELINE_FILES.workflowHistory), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as WorkflowStep);
    expect(history.map((s) => [s.sequence, s.step])).toEqual([
      [1, "review"],
      [2, "review"],
      [3, "review"],
      [4, "promote"],
      [5, "promote"],
      [6, "rollback"],
    ]);
    const state = JSON.parse(readFileSync(join(stateDir, PIPELINE_FILES.workflowState), "utf8"));
    expect(state.last_step).toEqual(history[5]);
  });

  it("refuses to promote twice, a rejected proposal, a pending one and an unknown id, each named", async () => {
    const deploy = ids.deploy_helper as string;
    await pipeline.review(deploy, "approve", ada);
    await pipeline.promote({ applier, dryRun: false, operator: "ada", proposalIds: [deploy] });
    const written = readFileSync(skillFile(), "utf8");
    await expect(
      pipeline.promote({ applier, dryRun: false, operator: "ada", proposalIds: [deploy] }),
    ).rejects.toThrow(
      new RegExp(
        `^proposal ${deploy} is already promoted \\(rollback_ref file:instructions/skill-deploy_helper.md@sha256:[0-9a-f]{64}\\)`,
      ),
    );
    expect(readFileSync(skillFile(), "utf8")).toBe(written);
    await expect(pipeline.review(deploy, "reject", ada)).rejects.toThrow(
      `proposal ${deploy} is already promoted`,
    );

    const review = ids.code_review as string;
    await pipeline.review(review, "reject", { operator: "bo", reason: "too vague" });
    await expect(
      pipeline.promote({ applier, dryRun: true, operator: "ada", proposalIds: [review] }),
    ).rejects.toThrow(`proposal ${review} was rejected by bo: a rejected proposal is never promoted`);
    const shell = ids["shell access"] as string;
    await expect(
      pipeline.promote({ applier, dryRun: true, operator: "ada", proposalIds: [shell] }),
    ).rejects.toThrow(`proposal ${shell} is pending: approve it before promoting`);
    const unknown = "00000000-0000-5000-8000-000000000000";
    await expect(
      pipeline.promote({ applier, dryRun: true, operator: "ada", proposalIds: [unknown] }),
    ).rejects.toThrow(`proposal ${unknown} not found`);
    await expect(pipeline.review(unknown, "approve", ada)).rejects.toThrow(`proposal ${unknown} not found`);
  });

  it("refuses to approve a blocked proposal, naming the failed gate check, and an approval with no operator", async () => {
    const summarize = ids.summarize as string;
    await expect(pipeline.review(summarize, "approve", ada)).rejects.toThrow(
      `proposal ${summarize} is blocked: gate negative_sessions: observed 1, needs 2`,
    );
    await expect(pipeline.review(ids.code_review as string, "approve", { operator: " " })).rejects.toThrow(
      "operator: must not be empty",
    );
    expect(existsSync(join(stateDir, PIPELINE_FILES.workflowHistory))).toBe(false);
  });

  it("appends to an instruction file that exists, and a rollback restores its text exactly", async () => {
    const mine = "# Capabilities\n\nMy own notes.\n- keep answers short";
    writeFileSync(capabilitiesFile(), mine);
    const id = ids["database migrations"] as string;
    await pipeline.review(id, "approve", ada);
    const [change] = (await pipeline.promote({ applier, dryRun: false, operator: "ada" })).changes;
    expect(change?.before).toBe(mine);
    expect(readFileSync(capabilitiesFile(), "utf8")).toBe(`${mine}\n${change?.after?.split("\n").at(-2)}\n`);
    await pipeline.rollback(id, { applier, ...ada });
    expect(readFileSync(capabilitiesFile(), "utf8")).toBe(mine);
  });

  it("leaves a file edited after promotion alone: the rollback is refused and recorded, the proposal stays promoted", async () => {
    const deploy = ids.deploy_helper as string;
    await pipeline.review(deploy, "approve", ada);
    await pipeline.promote({ applier, dryRun: false, operator: "ada" });
    writeFileSync(skillFile(), "# edited by hand\n");
    await expect(pipeline.rollback(deploy, { applier, ...ada })).rejects.toThrow(
      "instructions/skill-deploy_helper.md no longer holds what the promotion wrote",
    );
    expect(readFileSync(skillFile(), "utf8")).toBe("# edited by hand\n");
    expect(statusOf(pipeline, "deploy_helper")).toBe("promoted");
    const last = readFileSync(join(stateDir, PIPELINE_FILES.workflowHistory), "utf8")
      .trim()
      .split("\n")
      .at(-1);
    expect(JSON.parse(last as string)).toMatchObject({ step: "rollback", detail: { rolled_back: false } });
  });

  it("does not write through a symbolic link planted in the brain", async () => {
    const outside = join(mkdtempSync(join(tmpdir(), "ironclaw-outside-")), "target.md");
    writeFileSync(outside, "outside\n");
    symlinkSync(outside, skillFile());
    await pipeline.review(ids.deploy_helper as string, "approve", ada);
    await expect(pipeline.promote({ applier, dryRun: false, operator: "ada" })).rejects.toThrow(
      /change\.path/,
    );
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
  });

  it("two callers promoting the same proposal at once write it once and the queue keeps the promotion", async () => {
    const deploy = ids.deploy_helper as string;
    await pipeline.review(deploy, "approve", ada);
    const other = new EvolutionPipeline(EvolutionStore.open(stateDir), { now });
    const outcomes = await Promise.allSettled([
      pipeline.promote({ applier, dryRun: false, operator: "ada", proposalIds: [deploy] }),
      other.promote({
        applier: new BrainFileApplier(brainDir),
        dryRun: false,
        operator: "bo",
        proposalIds: [deploy],
      }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(String(refused.reason)).toContain(`proposal ${deploy} is already promoted`);
    expect(statusOf(pipeline, "deploy_helper")).toBe("promoted");
  });

  it("takes over the queue's lock from a process that died holding it", async () => {
    writeFileSync(join(stateDir, ".pipeline.lock"), `${hostname()}/999999999/1`);
    const entry = await pipeline.review(ids.deploy_helper as string, "approve", ada);
    expect(entry.status).toBe("approved");
    expect(existsSync(join(stateDir, ".pipeline.lock"))).toBe(false);
  });

  it("settles a promotion cut off between the write and the queue: promoted, and rollback restores the old text", async () => {
    const id = ids["database migrations"] as string;
    const mine = "# Capabilities\n\nMy own notes.\n";
    writeFileSync(capabilitiesFile(), mine);
    await pipeline.review(id, "approve", ada);
    // The process dies right after the file is written: the applier's write lands, nothing after it runs.
    const dying: PromotionApplier = {
      read: (path) => applier.read(path),
      apply: async (change) => {
        await applier.apply(change);
        throw new Error("power cut");
      },
      rollback: (ref, change) => applier.rollback(ref, change),
    };
    await expect(pipeline.promote({ applier: dying, dryRun: false, operator: "ada" })).rejects.toThrow(
      "power cut",
    );
    expect(statusOf(pipeline, "database migrations")).toBe("approved");

    const restarted = new EvolutionPipeline(EvolutionStore.open(stateDir), { now });
    const artifact = await restarted.promote({ applier, dryRun: false, operator: "ada" });
    expect(artifact.changes.map((c) => [c.proposal_id, c.outcome])).toEqual([[id, "recovered"]]);
    expect(statusOf(restarted, "database migrations")).toBe("promoted");
    await restarted.rollback(id, { applier, ...ada });
    expect(readFileSync(capabilitiesFile(), "utf8")).toBe(mine);
  });
});
