import { describe, expect, it } from "vitest";
import { settingsVariableParamsSchema } from "./settings-api.js";

describe("the settings form's variable names", () => {
  it("takes a variable that holds a secret", () => {
    for (const name of ["SLACK_BOT_TOKEN", "OPENROUTER_API_KEY", "MY_DISCORD_TOKEN"])
      expect(settingsVariableParamsSchema.safeParse({ name }).success).toBe(true);
  });

  it("refuses a name that steers the programs the warden starts, and says why", () => {
    for (const name of [
      "PATH",
      "NODE_OPTIONS",
      "LD_PRELOAD",
      "GIT_SSH_COMMAND",
      "IRONCLAW_HOME",
      "BASH_ENV",
    ]) {
      const parsed = settingsVariableParamsSchema.safeParse({ name });
      expect(parsed.success, name).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain("not one that steers programs");
    }
  });

  it("refuses what is not a variable name at all", () => {
    const parsed = settingsVariableParamsSchema.safeParse({ name: "xoxb-123" });
    expect(parsed.error?.issues[0]?.message).toContain("UPPER_SNAKE_CASE");
  });
});
