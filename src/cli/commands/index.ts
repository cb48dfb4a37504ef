import type { CommandNode } from "../command-spec.js";
import { agentCommand } from "./agent.js";
import { attestCommand } from "./attest.js";
import { brainCommand } from "./brain.js";
import { budgetCommand } from "./budget.js";
import { cellCommand } from "./cell.js";
import { commandCommand } from "./command-serve.js";
import { cronCommand } from "./cron.js";
import { doctorCommand } from "./doctor.js";
import { evolutionCommand } from "./evolution.js";
import { imageCommand } from "./image.js";
import { learnCommand } from "./learn.js";
import { ledgerCommand } from "./ledger.js";
import { memoryCommand } from "./memory.js";
import { orderCommand, runCommand } from "./run.js";
import { schemaCommand } from "./schema.js";
import { secretsCommand } from "./secrets.js";
import { sentinelCommand } from "./sentinel.js";
import { serveCommand } from "./serve.js";
import { serviceCommand } from "./service.js";
import { setupCommand } from "./setup.js";
import { skillsCommand } from "./skills.js";
import { soulCommand } from "./soul.js";
import { theaterCommand } from "./theater.js";
import { usageCommand } from "./usage.js";
import { userCommand } from "./user.js";
import { validateCommand } from "./validate.js";
import { verifyCommand } from "./verify.js";
import { workerCommand } from "./worker.js";

/** Every `ironclaw` command, in the order `--help` lists them. */
export const commands: readonly CommandNode[] = [
  setupCommand,
  serveCommand,
  serviceCommand,
  validateCommand,
  verifyCommand,
  schemaCommand,
  doctorCommand,
  brainCommand,
  memoryCommand,
  agentCommand,
  cronCommand,
  ledgerCommand,
  theaterCommand,
  runCommand,
  orderCommand,
  learnCommand,
  evolutionCommand,
  workerCommand,
  sentinelCommand,
  commandCommand,
  cellCommand,
  imageCommand,
  userCommand,
  secretsCommand,
  soulCommand,
  skillsCommand,
  attestCommand,
  budgetCommand,
  usageCommand,
];
