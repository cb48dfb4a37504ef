import { type PageFetcher, ToolRefusal } from "../agent/index.js";
import { EgressRefusal, fetchPage } from "../egress/index.js";

/**
 * The browser's fetch for an agent run on this host (`ironclaw agent`, `ironclaw cron run`): the warden's egress
 * called directly under the brain's policy, its refusals handed to the tool as the tool's own, so the model reads
 * and the audit records them as refused, as it does in a cell.
 */
export const hostPageFetcher: PageFetcher = async (url, policy, limits, signal) => {
  try {
    return await fetchPage(url, policy, limits, signal);
  } catch (error) {
    if (error instanceof EgressRefusal) throw new ToolRefusal(error.message, { cause: error });
    throw error;
  }
};
