import type { CommandClient } from "../agent/index.js";
import type { ProtocolPeer } from "../channel/index.js";

/** How long the warden may take to answer one command action; starting a run returns before it plans. */
const COMMAND_REPLY_MS = 60_000;

/**
 * The command tool's way out of the cell: each action is a CommandRequest to the warden, which owns the runs
 * and checks that each is this cell's user's. The turn's session goes in the header's session_id: it names the
 * conversation command reports progress to.
 */
export function createProxyCommandClient(peer: ProtocolPeer): CommandClient {
  return async (call, { signal, sessionId }) => {
    signal.throwIfAborted();
    const reply = await peer.call(
      {
        type: "CommandRequest",
        session_id: sessionId,
        action: call.action,
        ...(call.theaterId === undefined ? {} : { theater_id: call.theaterId }),
        ...(call.objective === undefined ? {} : { objective: call.objective }),
        ...(call.runId === undefined ? {} : { run_id: call.runId }),
      },
      { timeoutMs: COMMAND_REPLY_MS, signal },
    );
    if (reply.type === "CommandResult") {
      if (reply.run) return { run: reply.run };
      if (reply.error) return { error: reply.error };
    }
    // The warden's inbound check refused the frame (an objective over the cap…): its message names the field.
    if (reply.type === "Error") return { error: { code: "refused", message: reply.message } };
    throw new Error(`the warden answered a command request with ${reply.type}`);
  };
}
