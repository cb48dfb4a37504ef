/** A TOML table as read (anything else as an empty one): what the wizard merges its answers into. */
export function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A setting's text when it holds some. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
