import type { ApiError } from "../api/api-client.js";

/** The start form's fields, and the inline theater form shown beside it. */
export interface RunForm {
  theater: string;
  objective: string;
  newTheater: string;
  repoPath: string;
}

export type RunField = keyof RunForm;

/** A refusal split the way the form shows it: a message under each field the warden named, the rest on top. */
export interface FormRefusal {
  fields: Partial<Record<RunField, string>>;
  message: string | null;
}

// Which form field each body field of the warden's two routes (command's chat, theaters) is typed into.
const START_FIELDS: Record<string, RunField> = { theater_hint: "theater", message: "objective" };
const THEATER_FIELDS: Record<string, RunField> = { theater_id: "newTheater", repo_path: "repoPath" };

/**
 * Places each problem the warden named (`$.body.message`, `body.repo_path`, `$.orders[0].x` → its last name) under
 * the form field it belongs to; what names no field of the form stays a message above it.
 */
export function refusalOf(error: ApiError, form: "start" | "theater"): FormRefusal {
  const names = form === "start" ? START_FIELDS : THEATER_FIELDS;
  const fields: FormRefusal["fields"] = {};
  const rest: string[] = [];
  // A refusal that is not a validation (forbidden, conflict) names its field at the head of its message.
  const named = /^((?:\$|body)\.[\w.[\]]+): (.+)$/s.exec(error.message);
  const issues = error.issues ?? (named ? [{ path: named[1] ?? "", message: named[2] ?? "" }] : []);
  for (const issue of issues) {
    const name = /([A-Za-z_]+)(?:\[\d+\])*$/.exec(issue.path)?.[1] ?? "";
    const field = names[name];
    if (field && !fields[field]) fields[field] = `${name}: ${issue.message}`;
    else rest.push(`${issue.path}: ${issue.message}`);
  }
  const placed = Object.keys(fields).length > 0;
  return { fields, message: placed && rest.length === 0 ? null : [error.message, ...rest].join(" ") };
}

/** What keeps a form from being sent, checked before asking the warden (which judges it again). */
export function checkStart(form: RunForm): FormRefusal {
  const fields: FormRefusal["fields"] = {};
  if (form.theater === "") fields.theater = "Choose the theater the run works in.";
  if (!/\S/.test(form.objective)) fields.objective = "Say what the run should achieve.";
  return { fields, message: null };
}

export function checkTheater(form: RunForm): FormRefusal {
  const fields: FormRefusal["fields"] = {};
  const id = form.newTheater.trim();
  if (id === "") fields.newTheater = "Name the theater, like demo.";
  // The plainest of the warden's rules (it names the others): the id becomes one directory and branch segment.
  else if (/[\s/\\]|^[-.]/.test(id))
    fields.newTheater = "A theater id has no spaces or slashes and does not start with - or .";
  const path = form.repoPath.trim();
  if (path !== "" && !path.startsWith("/"))
    fields.repoPath = "A repository path is absolute (starts with /), or left empty for the default.";
  return { fields, message: null };
}

export const hasFieldProblems = (r: FormRefusal) => Object.keys(r.fields).length > 0;

/** The status pill's tone for a run or order status (seed 000 §0 spellings). */
export function toneOf(status: string): "running" | "succeeded" | "failed" | "suspended" {
  if (status === "COMPLETE" || status === "COMPLETED") return "succeeded";
  if (status === "FAILED" || status === "BLOCKED") return "failed";
  if (status === "CANCELLED") return "suspended";
  return "running";
}

export const isFinished = (status: string) => ["COMPLETE", "FAILED", "CANCELLED"].includes(status);
