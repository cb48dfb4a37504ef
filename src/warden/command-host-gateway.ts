import { type CommandService, type RunView, runOwner } from "../command/index.js";
import { NotFoundError } from "../core/index.js";
import type {
  CommandGateway,
  CommandNotify,
  CommandRunView,
  CommandStart,
  ConversationRef,
} from "./command-gateway.js";

/**
 * The command tool's gateway over the command this warden hosts: a run started from a conversation is carried to
 * its end by the service's run driver (planned, dispatched, integrated, synthesized), and its reply — or why it
 * failed — is posted back into that conversation. Runs and theaters are the user's own: another user's is
 * answered like one that does not exist.
 */
export class HostedCommandGateway implements CommandGateway {
  constructor(
    private readonly command: CommandService,
    private readonly notify: CommandNotify,
  ) {}

  async start(userId: string, start: CommandStart): Promise<{ runId: string; status: "OPEN" }> {
    const theater = await this.command.theaters.get(start.theaterId);
    if (!theater || theater.owner !== userId) throw new NotFoundError("theater", start.theaterId);
    const runId = await this.command.co.createRun({
      userId,
      theaterId: start.theaterId,
      objective: start.objective,
    });
    const report = this.reporter(userId, runId, start.conversation);
    this.command.runs.follow(runId).then(
      (done) =>
        report(
          done.status === "COMPLETE" ? "reply" : "failure",
          done.reply || `run ${runId}: ${done.status}`,
        ),
      (error: Error) => {
        // A warden stopping ends its waits; the run goes on with the next one and is not a failure.
        if (error.name !== "AbortError") report("failure", `run ${runId} did not finish: ${error.message}`);
      },
    );
    return { runId, status: "OPEN" };
  }

  async status(userId: string, runId: string): Promise<CommandRunView | undefined> {
    if ((await runOwner(this.command.store, runId)) !== userId) return undefined;
    return viewOf(await this.command.co.runStatus(runId), userId);
  }

  async cancel(userId: string, runId: string): Promise<CommandRunView | undefined> {
    if ((await runOwner(this.command.store, runId)) !== userId) return undefined;
    await this.command.co.cancel(runId, `cancelled by ${userId} from their agent`);
    return viewOf(await this.command.co.runStatus(runId), userId);
  }

  private reporter(userId: string, runId: string, conversation: ConversationRef | undefined) {
    return (kind: "reply" | "failure", text: string) => {
      if (conversation) this.notify(userId, conversation, text, { kind, runId });
    };
  }
}

function viewOf(run: RunView, userId: string): CommandRunView {
  return {
    runId: run.run_id,
    theaterId: run.theater_id,
    userId,
    status: run.status,
    orders: run.orders.map((o) => ({
      orderId: o.order_id,
      title: o.objective ?? o.key ?? o.order_id,
      status: o.status,
    })),
    ...(run.status === "COMPLETE" && run.summary ? { reply: run.summary } : {}),
  };
}
