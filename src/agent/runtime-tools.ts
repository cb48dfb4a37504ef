import type { RuntimeConfig } from "./runtime-config.js";
import { createBashTool } from "./tools/bash-tool.js";
import { createBrowserTool, type PageFetcher } from "./tools/browser-tool.js";
import { createCalendarTools } from "./tools/calendar-tools.js";
import { type CommandClient, createCommandTool, noCommand } from "./tools/command-tool.js";
import { createFileTool } from "./tools/file-tool.js";
import { createGithubTools } from "./tools/github-tools.js";
import type { IntegrationAccess } from "./tools/integration-client.js";
import { createMailTools } from "./tools/mail-tools.js";
import { createMemoryTool, type MemoryToolOperations } from "./tools/memory-tool.js";
import { createSettingsTool } from "./tools/settings-tool.js";
import { type AgentTool, ToolRefusal } from "./tools/tool-definition.js";

/** The built-in tools of a runtime, configured from irowclaw.toml and the runtime's overrides. */
export function createRuntimeTools(input: {
  config: RuntimeConfig["config"];
  workspace: string;
  allowPrivateNetwork?: boolean;
  pageFetcher?: PageFetcher;
  commandClient?: CommandClient;
  /** Variables the bash tool adds to each command's env, asked at each call. */
  toolEnv?: () => Record<string, string>;
  /** The warden's integrations; a tool family is created only for an integration the user has configured. */
  integrations?: IntegrationAccess;
  memory: MemoryToolOperations;
  topK: number;
}): AgentTool[] {
  const { tools } = input.config;
  return [
    createBashTool({
      workspace: input.workspace,
      timeoutMs: tools.bash.timeout_ms,
      maxOutputBytes: tools.bash.max_output_bytes,
      ...(input.toolEnv ? { env: input.toolEnv } : {}),
    }),
    createFileTool(),
    createBrowserTool({
      policy: {
        egress: tools.network.egress,
        allowHosts: tools.network.allow_hosts,
        denyHosts: tools.network.deny_hosts,
        allowPrivate: input.allowPrivateNetwork ?? tools.browser.allow_private,
      },
      maxBytes: tools.browser.max_bytes,
      timeoutMs: tools.browser.timeout_ms,
      fetch: input.pageFetcher ?? noFetcher,
    }),
    createMemoryTool(input.memory, { topK: input.topK }),
    createCommandTool(input.commandClient ?? noCommand),
    ...(input.integrations?.configured().includes("github") ? createGithubTools(input.integrations) : []),
    ...(input.integrations?.configured().includes("calendar") ? createCalendarTools(input.integrations) : []),
    ...(input.integrations?.configured().includes("mail") ? createMailTools(input.integrations) : []),
    // Offered only to an admin's agent: the warden names `settings` among the integrations of admins alone.
    ...(input.integrations?.configured().includes("settings")
      ? [createSettingsTool(input.integrations)]
      : []),
  ];
}

/** A runtime opened without a page fetcher (a warm-up, a test) has a browser that refuses every URL. */
const noFetcher: PageFetcher = async (url) => {
  throw new ToolRefusal(`${url} was not fetched: this runtime has no page fetcher`);
};
