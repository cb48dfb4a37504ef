import { runCreateRequestSchema } from "../../contracts/index.js";
import { type Issue, issuesFromZod, jsonPath, ValidationError } from "../../core/index.js";

/** A user's objective for the CO (seed 000 §3.2 POST /runs), in the names the TypeScript callers use. */
export interface CreateRunInput {
  userId: string;
  theaterId: string;
  objective: string;
  metadata?: Record<string, unknown>;
}

/** The contract's field names → the caller's, so an error names the field the caller actually wrote. */
const CALLER_NAMES: Record<string, string> = { user_id: "userId", theater_hint: "theaterId" };

/**
 * The run request checked against the POST /runs contract. The contract lets theater_hint be left out (POST
 * /chat may leave the choice to the CO); a run is always in a theater, so here theaterId is required. An
 * objective of spaces is as empty as "" to a planner, so it is refused too. Throws a ValidationError naming
 * every bad field.
 */
export function checkRunRequest(input: CreateRunInput): CreateRunInput {
  const body = {
    user_id: input?.userId,
    theater_hint: input?.theaterId,
    objective: input?.objective,
    ...(input?.metadata === undefined ? {} : { metadata: input.metadata }),
  };
  const result = runCreateRequestSchema.safeParse(body);
  const issues: Issue[] = result.success
    ? []
    : issuesFromZod(result.error).map((i) => ({ ...i, path: renamed(i.path) }));
  if (input?.theaterId === undefined) issues.push(required("theaterId"));
  if (typeof input?.objective === "string" && input.objective.length > 0 && !/\S/.test(input.objective))
    issues.push({ path: jsonPath(["objective"]), message: "must not be blank", code: "custom" });
  if (issues.length > 0) throw new ValidationError("run request", issues);
  return input;
}

function renamed(path: string): string {
  const match = /^\$\.([a-z_]+)(.*)$/.exec(path);
  const name = match?.[1];
  return name !== undefined && CALLER_NAMES[name] ? `$.${CALLER_NAMES[name]}${match?.[2] ?? ""}` : path;
}

function required(field: string): Issue {
  return { path: jsonPath([field]), message: "is required", code: "custom" };
}
