import { CellStartError } from "../cell.js";

/** Lines the tools in front of a bwrap cell print when they give up; the last one is the reason. */
const TOOL_LINE = /^(bwrap|ironclaw-stage|unshare|setpriv|mount|prlimit|stat|\/bin\/sh): /;

/** Known causes and what the operator can do about each. */
const HINTS: Array<[RegExp, string]> = [
  [/spawn \S+ ENOENT/, "install bubblewrap, and util-linux for prlimit, unshare and setpriv"],
  [
    /unshare: unshare failed|mount: .*(permission denied|not permitted)/i,
    "the warden runs as root but may not mount here (a container without CAP_SYS_ADMIN?): run it as a non-root user",
  ],
  [
    /No permissions to creat(e|ing) new namespace|setting up uid map|Creating new namespace failed/i,
    "unprivileged user namespaces are disabled on this host: allow them (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone) or use the microvm backend",
  ],
  [
    /Can't find source path .*Permission denied/,
    "the user running the warden must be able to reach that path",
  ],
];

/**
 * One line that says why a bwrap cell did not start and what to do, from the tail of its stderr that the
 * start error carries; the full tail stays on the following lines for logs.
 */
export function explainStartFailure(error: Error): Error {
  if (!(error instanceof CellStartError)) return error;
  const [first = "", ...tail] = error.message.split("\n");
  const toolLine = tail
    .map((line) => line.trim())
    .reverse()
    .find((line) => TOOL_LINE.test(line));
  // "bwrap cell for ada did not start: the process exited (1) …" → "… did not start: bwrap: <why>"
  const started = /^.*? did not start/.exec(first)?.[0];
  const head = toolLine && started ? `${started}: ${toolLine}` : first;
  const hint = HINTS.find(([pattern]) => pattern.test(head))?.[1];
  return new CellStartError([hint ? `${head} — ${hint}` : head, ...tail].join("\n"), { cause: error });
}
