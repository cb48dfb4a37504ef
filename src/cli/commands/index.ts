import type { CliCommand } from "../command.js";
import { doctorCommand } from "./doctor.js";
import { schemaCommand } from "./schema.js";
import { validateCommand } from "./validate.js";

/** Every `ironclaw` command, in the order `--help` lists them. */
export const commands: CliCommand[] = [validateCommand, schemaCommand, doctorCommand];
