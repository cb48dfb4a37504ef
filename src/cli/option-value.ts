import type { OptionSpec } from "./command-spec.js";

/** A number as typed on a command line, negative and fractional ones included: `-3`, `.5`, `1e3`. */
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A token the parser reads as a flag: `--x`, `-x`; never `-`, `--`, or a negative number. */
export function looksLikeOption(token: string): boolean {
  return token.length > 1 && token.startsWith("-") && token !== "--" && !NUMBER.test(token);
}

/** What the help and the errors show as an option's value: `<dir>`, `FULL|NORMAL|OFF`. */
export function describeValue(option: OptionSpec): string {
  if (option.type === "boolean") return "";
  if (option.valueName !== undefined)
    return option.valueName.includes("|") ? option.valueName : `<${option.valueName}>`;
  if (option.choices) return option.choices.join("|");
  return option.type === "number" ? "<n>" : "<value>";
}

/**
 * Turns the text given for a flag into its value, or returns the rule it broke (the caller names the flag).
 * A list's text may hold several values separated by commas.
 */
export function convertOptionText(
  option: OptionSpec,
  text: string,
): { value: string | number | string[] } | { rule: string } {
  if (option.choices) {
    const exact = option.choices.find((c) => c === text);
    const loose = option.choices.filter((c) => c.toLowerCase() === text.toLowerCase());
    const chosen = exact ?? (loose.length === 1 ? loose[0] : undefined);
    return chosen === undefined ? { rule: `must be one of ${option.choices.join(", ")}` } : { value: chosen };
  }
  if (option.type === "list")
    return {
      value: text
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== ""),
    };
  if (option.type !== "number") return { value: text };
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return { rule: `expected a number, got ${JSON.stringify(text)}` };
  const value = Number(trimmed);
  if (option.integer && !Number.isInteger(value))
    return { rule: `expected a whole number, got ${JSON.stringify(text)}` };
  return outOfRange(option, value) ?? { value };
}

function outOfRange(option: OptionSpec, value: number): { rule: string } | undefined {
  const { min, max } = option;
  if (min !== undefined && max !== undefined && (value < min || value > max))
    return { rule: `must be from ${min} to ${max}, got ${value}` };
  if (min !== undefined && value < min) return { rule: `must be at least ${min}, got ${value}` };
  if (max !== undefined && value > max) return { rule: `must be at most ${max}, got ${value}` };
  return undefined;
}

/** `--json=false` is accepted the way scripts write it; anything but true/false is refused. */
export function convertFlagText(text: string): { value: boolean } | { rule: string } {
  const lower = text.toLowerCase();
  if (lower === "true") return { value: true };
  if (lower === "false") return { value: false };
  return { rule: `takes no value (or true|false), got ${JSON.stringify(text)}` };
}
