import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { GovernanceReport } from "../../src/evolution/index.js";
import { initBrain } from "../../src/memory/index.js";
import { seededState } from "../evolution/pipeline-state.js";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

let home: string;
let stateDir: string;
let brainDir: string;
let ids: Record<string, string>;

const evolution = (args: string[], spawn = false) =>
  (spawn ? runIronclaw : runIronclawInProcess)(["evolution", ...args, "--state", stateDir], {
    env: { IRONCLAW_HOME: home, USER: "ada" },
  });

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-governance-cli-"));
  stateDir = seededState().stateDir;
  brainDir = join(home, "users", "ada", "brain");
  await initBrain(brainDir);
});

describe("ironclaw evolution governance|review|promote|rollback", () => {
  it("takes a proposal from the governance report through approval, promotion into the user's brain and rollback", async () => {
    const governance = await evolution(["governance", "--format", "json", "--write-report"]);
    expect(governance.code).toBe(0);
    const report = JSON.parse(governance.stdout) as GovernanceReport;
    ids = Object.fromEntries(report.proposals.map((p) => [p.subject, p.proposal_id]));
    expect(report.counts.readiness).toEqual({
      ready_for_promotion: 1,
      operator_review_required: 3,
      blocked: 1,
    });
    expect(governance.stderr).toContain(join(stateDir, "reports", "latest_governance_report.md"));
    const deploy = ids.deploy_helper as string;

    const approved = await evolution(["review", "approve", deploy, "--reason", "every deploy failed"]);
    expect(approved.stdout).toBe(
      `${deploy} approved by ada (skill_prompt_metadata: deploy_helper → instructions/skill-deploy_helper.md)\n`,
    );

    const dry = await evolution(["promote", "--user", "ada", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^would_apply {5}instructions\/skill-deploy_helper\.md/);
    expect(dry.stdout).toContain("  + - Sessions that used deploy_helper were judged failed or scored low.");
    const skillFile = join(brainDir, "instructions", "skill-deploy_helper.md");
    expect(existsSync(skillFile)).toBe(false);

    const promoted = await evolution(["promote", "--user", "ada"], true);
    expect(promoted.stderr).toBe("");
    expect(promoted.stdout).toMatch(/^applied {9}instructions\/skill-deploy_helper\.md/);
    const artifact = JSON.parse(
      readFileSync(join(stateDir, "reports", "latest_promotion_artifact.json"), "utf8"),
    );
    expect(readFileSync(skillFile, "utf8")).toBe(artifact.changes[0].after);

    const twice = await evolution(["promote", deploy, "--user", "ada"]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`proposal ${deploy} is already promoted`);

    const rolledBack = await evolution(["rollback", deploy, "--user", "ada", "--reason", "too strict"]);
    expect(rolledBack.code).toBe(0);
    expect(existsSync(skillFile)).toBe(false);
    const md = await evolution(["governance"]);
    expect(md.stdout).toContain("- Review: rolled_back (last: rollback by ada at ");
    // One real child process (the promotion that writes the brain); a loaded machine starts one slowly.
  }, 120_000);

  it("refuses an unknown proposal by its id, a blocked one by its gate, and promotion with no brain named", async () => {
    const unknown = await evolution(["review", "reject", "no-such-proposal"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("proposal no-such-proposal not found");
    const blocked = await evolution(["review", "approve", ids.summarize as string]);
    expect(blocked.stderr).toContain("is blocked: gate negative_sessions: observed 1, needs 2");
    const noBrain = await evolution(["promote", "--dry-run"]);
    expect(noBrain.code).toBe(2);
    expect(noBrain.stderr).toContain("name the brain to change: --user <name> or --brain <dir>");
  });
});
