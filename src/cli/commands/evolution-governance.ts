import { resolve } from "node:path";
import { canonicalJson, IronclawError } from "../../core/index.js";
import {
  BrainFileApplier,
  EvolutionPipeline,
  type GovernanceReport,
  type PromotionArtifact,
  renderGovernanceMarkdown,
} from "../../evolution/index.js";
import { type CliIo, println, UsageError } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { brainWriter, kindAt, userBrainPlace } from "../user-brain.js";
import { openEvolutionStore, stateOption } from "./evolution-store.js";

const operatorOption = {
  name: "operator",
  type: "string",
  valueName: "name",
  description: "who decides, as recorded in the review queue (default: $USER)",
} as const;
const reasonOption = {
  name: "reason",
  type: "string",
  valueName: "text",
  description: "why, as recorded",
} as const;
const userOption = {
  name: "user",
  type: "string",
  valueName: "name",
  description: "the user whose brain (IRONCLAW_HOME/users/<name>/brain) is changed",
} as const;
const brainOption = {
  name: "brain",
  type: "string",
  valueName: "dir",
  description: "a brain directory to change, instead of --user",
} as const;

const BRAIN_HELP = `Without a warden, the change is written straight into the brain directory of --user (IRONCLAW_HOME's
users/<name>/brain) or --brain <dir>, and only into instructions/<name>.md files: never through a symbolic
link, and only while the file holds exactly the text the change was computed against. With --user it is refused
while that user's cell or a warden on this home runs, since the soul guard would then hold the change as one
nobody approved.`;

function pipelineFor(state: string | undefined, io: CliIo): EvolutionPipeline {
  return new EvolutionPipeline(openEvolutionStore(state, io));
}

function operatorOf(given: string | undefined, io: CliIo): string {
  return given ?? io.env.USER ?? io.env.LOGNAME ?? "local-operator";
}

/** The applier of --user or --brain; writing (not a dry run) is refused while someone else may write that brain. */
async function brainApplier(
  options: { user?: string | undefined; brain?: string | undefined },
  io: CliIo,
  writing: boolean,
): Promise<BrainFileApplier> {
  if (options.brain !== undefined && options.user !== undefined)
    throw new UsageError("give --user or --brain, not both");
  if (options.brain !== undefined) return new BrainFileApplier(resolve(io.cwd, options.brain));
  if (options.user === undefined)
    throw new UsageError("name the brain to change: --user <name> or --brain <dir>");
  const place = userBrainPlace(io, options.user);
  if ((await kindAt(place.brainDir)) !== "dir")
    throw new IronclawError("brain_missing", `${options.user} has no brain directory at ${place.brainDir}`);
  if (writing) {
    const writer = await brainWriter(place.home, options.user);
    if (writer !== undefined)
      throw new IronclawError(
        "brain_in_use",
        `${writer}: the soul guard would hold this change as unapproved; stop it first`,
      );
  }
  return new BrainFileApplier(place.brainDir);
}

export const evolutionGovernance = defineCommand({
  name: "governance",
  summary: "proposals with their gate, readiness, risk, review state and rollback context",
  description: `Runs the local evolution pipeline (deterministic, no model) over the projected and direct feedback of the
state directory and shows every proposal: the gate checks it passed or failed, its readiness
(ready_for_promotion, operator_review_required, blocked), risk, review state and the next command to run.
--write-report also writes reports/latest_evolution_report.json, latest_governance_report.json and .md, and
latest_operator_review.json, and records the step in workflow_history.jsonl.`,
  options: [
    stateOption,
    {
      name: "format",
      type: "string",
      choices: ["json", "md"],
      default: "md",
      description: "the report's form",
    },
    { name: "write-report", type: "boolean", description: "also write the reports into the state directory" },
  ],
  async run({ options }, io) {
    const pipeline = pipelineFor(options.state, io);
    let report: GovernanceReport;
    if (options["write-report"]) {
      const { view, paths } = await pipeline.writeReports();
      report = view.governance;
      for (const path of paths) println(io.stderr, `wrote ${path}`);
    } else report = pipeline.view().governance;
    io.stdout.write(
      options.format === "json" ? `${canonicalJson(report)}\n` : renderGovernanceMarkdown(report),
    );
    return 0;
  },
});

function reviewLeaf(decision: "approve" | "reject") {
  return defineCommand({
    name: decision,
    summary: `${decision} a proposal, recorded in reports/latest_operator_review.json`,
    positionals: [{ name: "proposal", required: true, description: "the proposal's id" }],
    options: [stateOption, reasonOption, operatorOption, jsonOption("the review entry")],
    async run({ options, args }, io) {
      const operator = operatorOf(options.operator, io);
      const entry = await pipelineFor(options.state, io).review(args.proposal, decision, {
        operator,
        reason: options.reason ?? null,
      });
      if (options.json) println(io.stdout, canonicalJson(entry));
      else
        println(
          io.stdout,
          `${entry.proposal_id} ${entry.status} by ${operator} (${entry.kind}: ${entry.subject} → ${entry.target_path})`,
        );
      return 0;
    },
  });
}

export const evolutionReview = defineGroup({
  name: "review",
  summary: "approve or reject a proposal: evolution review approve|reject <proposal>",
  subcommands: [reviewLeaf("approve"), reviewLeaf("reject")],
});

export const evolutionPromote = defineCommand({
  name: "promote",
  summary: "write approved proposals into a brain's instruction files, or show exactly what would change",
  description: `Promotes every approved proposal, or only those named (each must be approved, not yet promoted). Each change
is listed with the file's exact text before and after in reports/latest_promotion_artifact.json; --dry-run
writes only that artifact. ${BRAIN_HELP}`,
  positionals: [
    {
      name: "proposals",
      variadic: true,
      valueName: "proposal",
      description: "proposal ids (default: every approved one)",
    },
  ],
  options: [
    stateOption,
    userOption,
    brainOption,
    { name: "dry-run", type: "boolean", description: "change nothing; write the artifact only" },
    operatorOption,
    jsonOption("the promotion artifact"),
  ],
  async run({ options, args }, io) {
    const applier = await brainApplier(options, io, !options["dry-run"]);
    const artifact = await pipelineFor(options.state, io).promote({
      applier,
      dryRun: options["dry-run"],
      operator: operatorOf(options.operator, io),
      proposalIds: args.proposals,
    });
    if (options.json) println(io.stdout, canonicalJson(artifact));
    else printArtifact(io, artifact);
    return artifact.changes.some((c) => c.outcome === "refused") ? 1 : 0;
  },
});

export const evolutionRollback = defineCommand({
  name: "rollback",
  summary: "restore the file a promoted proposal changed to its text from before",
  description: `Reverts a promoted proposal: the file gets back its text from before the promotion (or is removed if the
promotion created it), only while it still holds what the promotion wrote. ${BRAIN_HELP}`,
  positionals: [{ name: "proposal", required: true, description: "the proposal's id" }],
  options: [stateOption, userOption, brainOption, reasonOption, operatorOption],
  async run({ options, args }, io) {
    const applier = await brainApplier(options, io, true);
    await pipelineFor(options.state, io).rollback(args.proposal, {
      applier,
      operator: operatorOf(options.operator, io),
      reason: options.reason ?? null,
    });
    println(io.stdout, `${args.proposal} rolled back`);
    return 0;
  },
});

function printArtifact(io: CliIo, artifact: PromotionArtifact): void {
  if (artifact.changes.length === 0) println(io.stdout, "nothing to promote: no approved proposal");
  for (const change of artifact.changes) {
    println(
      io.stdout,
      `${change.outcome.padEnd(15)} ${change.path}  (${change.proposal_id}${change.reason ? `: ${change.reason}` : ""})`,
    );
    if (change.after === null) continue;
    const before = new Set((change.before ?? "").split("\n"));
    for (const line of change.after.split("\n"))
      if (line !== "" && !before.has(line)) println(io.stdout, `  + ${line}`);
  }
}
