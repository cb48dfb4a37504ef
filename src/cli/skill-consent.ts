import { createInterface } from "node:readline";
import type { SkillReview } from "../warden/index.js";
import { type CliIo, println } from "./command.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is made visible
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * A skill's text is the author's, not ours: control characters (terminal escapes that could repaint the prompt
 * or hide a line) are shown as escapes instead of being sent to the terminal.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** What the person approves: the skill, its hash, and everything it asks for, one line each. */
export function printReview(io: CliIo, review: SkillReview): void {
  const { asks } = review;
  const list = (values: readonly string[]) => (values.length === 0 ? "none" : values.map(visible).join(", "));
  println(io.stdout, `skill ${review.name}  sha256 ${review.sha256}`);
  for (const line of visible(review.description).split("\n")) println(io.stdout, `  ${line}`);
  println(io.stdout, `  files: ${review.files.length} (${review.totalBytes} bytes)`);
  if (asks.hosts.length === 0) println(io.stdout, "  hosts: none (no secret is sent anywhere for it)");
  for (const h of asks.hosts) {
    const limits = [h.methods && `methods ${h.methods.join(", ")}`, h.paths && `paths ${h.paths.join(", ")}`];
    const only = limits.filter(Boolean).join("; ");
    println(
      io.stdout,
      `  host: ${h.host} gets secret ${h.secret} in header ${visible(`${h.header}: ${h.format}`)}${only ? ` (${only})` : ""}`,
    );
  }
  println(io.stdout, `  secrets: ${list(asks.secrets)}`);
  println(io.stdout, `  env: ${list(asks.env)}`);
  println(
    io.stdout,
    `  bins: ${list(asks.bins)}${asks.anyBins.length > 0 ? `; one of: ${list(asks.anyBins)}` : ""}`,
  );
  println(io.stdout, `  allowed-tools: ${list(asks.allowedTools)}`);
  if (asks.os) println(io.stdout, `  os: ${list(asks.os)}`);
  println(io.stdout, `  ignored install specs: ${list(asks.ignoredInstall)}`);
}

export type Consent = { sha256: string } | { refused: string };

/**
 * The sha256 the person approves: the one given with --approve, the one shown with --yes, or their answer on a
 * terminal. Without a terminal and without either flag nobody has consented, and nothing is installed.
 */
export async function askConsent(
  io: CliIo,
  review: SkillReview,
  flags: { yes: boolean; approve: string | undefined; verb: string },
): Promise<Consent> {
  if (flags.approve !== undefined) return { sha256: flags.approve.toLowerCase() };
  if (flags.yes) return { sha256: review.sha256 };
  if ((io.stdin as { isTTY?: boolean }).isTTY !== true)
    return {
      refused: `not ${flags.verb}: there is no terminal to ask on. Read the above, then run again with --approve ${review.sha256} (or --yes to approve whatever the source holds then)`,
    };
  io.stdout.write(
    `${flags.verb === "updated" ? "Update to" : "Install"} ${review.name} with these rights? [y/N] `,
  );
  const lines = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string>((done) => {
    lines.once("line", done);
    lines.once("close", () => done(""));
  });
  lines.close();
  return /^y(es)?$/i.test(answer.trim())
    ? { sha256: review.sha256 }
    : { refused: `not ${flags.verb}: not approved` };
}
