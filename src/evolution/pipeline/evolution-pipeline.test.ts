import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { seededState } from "../../../test/evolution/pipeline-state.js";
import { EvolutionPipeline } from "./evolution-pipeline.js";
import { PIPELINE_FILES } from "./pipeline-files.js";
import type { Proposal } from "./proposal.js";

const GOLDEN = new URL("../../../test/fixtures/evolution/pipeline-golden/", import.meta.url).pathname;
const REPORTS = [
  "evolutionReport",
  "governanceJson",
  "governanceMd",
  "operatorReview",
  "workflowState",
  "workflowHistory",
] as const;

async function evolveFresh(): Promise<Record<string, string>> {
  const { store, stateDir } = seededState();
  await new EvolutionPipeline(store).writeReports();
  return Object.fromEntries(
    REPORTS.map((f) => [
      basename(PIPELINE_FILES[f]),
      readFileSync(join(stateDir, PIPELINE_FILES[f]), "utf8"),
    ]),
  );
}

const bySubject = (proposals: readonly Proposal[]) => new Map(proposals.map((p) => [p.subject, p]));

describe("the evolution pipeline over a fixed feedback set", () => {
  it("writes byte-identical reports from two fresh states, equal to the golden files", async () => {
    const first = await evolveFresh();
    const second = await evolveFresh();
    expect(second).toEqual(first);
    if (process.env.UPDATE_GOLDEN === "1") {
      mkdirSync(GOLDEN, { recursive: true });
      for (const [name, text] of Object.entries(first)) writeFileSync(join(GOLDEN, name), text);
    }
    for (const [name, text] of Object.entries(first))
      expect(text, name).toBe(readFileSync(join(GOLDEN, name), "utf8"));
  });

  it("re-running evolve on the same feedback rewrites the same bytes and appends no second step", async () => {
    const { store, stateDir } = seededState();
    const pipeline = new EvolutionPipeline(store);
    await pipeline.writeReports();
    const read = () => REPORTS.map((f) => readFileSync(join(stateDir, PIPELINE_FILES[f]), "utf8"));
    const before = read();
    await pipeline.writeReports();
    expect(read()).toEqual(before);
    expect(before[5]?.trim().split("\n")).toHaveLength(1);
  });

  it("derives proposals from projected and direct feedback, never from session_started envelopes", () => {
    const { store } = seededState();
    const { evolution } = new EvolutionPipeline(store).view();
    const proposals = bySubject(evolution.proposals);
    expect([...proposals.keys()].sort()).toEqual([
      "code_review",
      "database migrations",
      "deploy_helper",
      "shell access",
      "summarize",
    ]);
    const deploy = proposals.get("deploy_helper");
    // s5's direct feedback counts through its routed session's skills.
    expect(deploy?.evidence.records.map((r) => [r.session_id, r.source])).toContainEqual([
      "s5",
      "direct_feedback",
    ]);
    expect(deploy?.evidence).toMatchObject({ sessions: 3, negative_sessions: 3 });
    const review = proposals.get("code_review");
    expect(
      review?.evidence.records.every((r) => r.source_envelope_id !== "00000000-0000-0000-0000-000000001000"),
    ).toBe(true);
    expect(review?.evidence.records.map((r) => r.source_envelope_id)).toContain(
      "00000000-0000-0000-0000-000000001001",
    );
    // "Database  migrations" and "database migrations" are one capability, reported by two sessions.
    expect(proposals.get("database migrations")?.evidence.records.map((r) => r.session_id)).toEqual([
      "s1",
      "s2",
    ]);
  });

  it("keeps a proposal's id when more evidence arrives, since the id comes from the change, not the counts", () => {
    const { store } = seededState();
    const pipeline = new EvolutionPipeline(store);
    const before = bySubject(pipeline.view().evolution.proposals).get("summarize");
    store.recordDirect({
      record_kind: "routed_session",
      session_id: "s8",
      task: "summarise",
      selected_skill_ids: ["summarize"],
      occurred_at: "2026-03-13T18:40:00Z",
    });
    store.recordDirect({
      record_kind: "direct_feedback",
      session_id: "s8",
      task: "summarise",
      status: "failure",
      score: 0.1,
      occurred_at: "2026-03-13T18:41:00Z",
    });
    const after = bySubject(pipeline.view().evolution.proposals).get("summarize");
    expect(after?.proposal_id).toBe(before?.proposal_id);
    expect([before?.readiness, after?.readiness]).toEqual(["blocked", "operator_review_required"]);
  });

  it("writes nothing until asked", () => {
    const { store, stateDir } = seededState();
    new EvolutionPipeline(store).view();
    for (const file of REPORTS) expect(existsSync(join(stateDir, PIPELINE_FILES[file]))).toBe(false);
  });

  it("a history line torn by a crash is replaced by the next step's line, never left inside the file", async () => {
    const { store, stateDir } = seededState();
    const pipeline = new EvolutionPipeline(store, { now: () => new Date("2026-03-14T09:00:00Z") });
    await pipeline.writeReports();
    const history = join(stateDir, PIPELINE_FILES.workflowHistory);
    // Longer than the line that replaces it, so what is left of it must be cut, not just overwritten.
    appendFileSync(history, `{"sequence":2,"step":"review","detail":{"pad":"${"x".repeat(4000)}`);
    const id = pipeline.view().evolution.proposals.find((p) => p.subject === "deploy_helper")
      ?.proposal_id as string;
    await pipeline.review(id, "approve", { operator: "ada" });
    const lines = readFileSync(history, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((l) => JSON.parse(l).step)).toEqual(["evolve", "review"]);
  });
});
