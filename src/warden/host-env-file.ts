import {
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../core/index.js";

/**
 * IRONCLAW_HOME/ironclawd.env: the keys the warden reads from its environment (provider keys, channel tokens),
 * one `NAME=value` a line, mode 0600. It sits beside ironclawd.toml in the home (0700), which no cell mounts: a
 * cell is given its own brain folder only. systemd's unit reads it with EnvironmentFile=; `ironclaw serve` reads it
 * itself, the process's own environment winning.
 */
export const HOST_ENV_FILE = "ironclawd.env";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// What systemd's EnvironmentFile= and a shell both take without quotes.
const BARE = /^[A-Za-z0-9_./:@%+,=-]*$/;

export function hostEnvFile(home: string): string {
  return join(home, HOST_ENV_FILE);
}

/** The variables of the home's env file; none when there is no file. */
export function readHostEnv(home: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(hostEnvFile(home), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  return parseEnvText(text);
}

/** The environment the warden runs with: the home's env file under the process's own variables. */
export function withHostEnv(home: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...readHostEnv(home), ...env };
}

/** `NAME=value` lines as systemd reads them: `#` comments, blank lines, values bare or in single or double quotes. */
export function parseEnvText(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const equals = line.indexOf("=");
    if (equals < 1) continue;
    const name = line.slice(0, equals).trim();
    if (!NAME.test(name)) continue;
    vars[name] = unquote(line.slice(equals + 1).trim());
  }
  return vars;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
    return value.slice(1, -1).replace(/\\(["\\$`])/g, "$1");
  return value;
}

/**
 * Sets variables in the home's env file, keeping every other line as it was, written whole to a new file (0600)
 * that then replaces the old one, so a crash leaves the old file or the new one, never half of one. Throws
 * InvalidInputError naming the variable when a name or value cannot be written (a newline, a NUL).
 */
export function writeHostEnv(home: string, values: Record<string, string>): string {
  for (const [name, value] of Object.entries(values)) {
    if (!NAME.test(name))
      throw new InvalidInputError(name, "must be a variable name (letters, digits and _)");
    if (/[\r\n\0]/.test(value)) throw new InvalidInputError(name, "must be one line, without NUL characters");
  }
  const file = hostEnvFile(home);
  let lines: string[] = [];
  try {
    lines = readFileSync(file, "utf8").replace(/\n$/, "").split("\n");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    lines = [
      "# The IronClaw warden's keys: provider keys and channel tokens it reads from its environment.",
      "# Mode 0600, readable by the warden only; never mounted into a cell. `ironclaw setup` writes it.",
    ];
  }
  const left = new Map(Object.entries(values));
  const out = lines.map((line) => {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    const value = name === undefined ? undefined : left.get(name);
    if (name === undefined || value === undefined) return line;
    left.delete(name);
    return envLine(name, value);
  });
  for (const [name, value] of left) out.push(envLine(name, value));
  writePrivateFile(file, `${out.join("\n")}\n`);
  return file;
}

function envLine(name: string, value: string): string {
  return BARE.test(value) ? `${name}=${value}` : `${name}="${value.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** Writes `text` to `file` through a new 0600 file renamed over it; the old file is replaced, not edited. */
export function writePrivateFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, text);
    // On the disk before it takes the old file's place: a crash leaves the old file or the new one whole.
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  // The mode a umask may have narrowed, stated once more: 0600 whatever the umask.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
