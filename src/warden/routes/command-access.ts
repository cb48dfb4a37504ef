import { type CommandService, orderOwner, runOwner, type TheaterRecord } from "../../command/index.js";
import { InvalidInputError, NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

export type CommandDeps = Pick<WardenContext, "command">;

/**
 * Who may touch what in command: a theater, a run and its orders belong to the user who made them; an admin
 * reaches everything. Another user's run is answered as an unknown one (404), never as "not yours", so its
 * existence is not theirs to learn.
 */
export function commandAccess(ctx: CommandDeps) {
  const service = (): CommandService => {
    if (!ctx.command)
      throw new HttpError(
        "unavailable",
        "command is off on this host: [command] enabled = false in ironclawd.toml",
      );
    return ctx.command;
  };
  return {
    service,
    /** The user_id a body names must be the caller's own, unless an admin acts for someone. */
    actingAs(auth: Auth, userId: string): string {
      if (!auth.admin && userId !== auth.userId)
        throw new HttpError("forbidden", `body.user_id: must be your own user id (${auth.userId})`, {
          field: "body.user_id",
        });
      return userId;
    },
    async theater(auth: Auth, theaterId: string): Promise<TheaterRecord> {
      const theater = await service().theaters.get(theaterId);
      if (!theater || (!auth.admin && theater.owner !== auth.userId))
        throw new NotFoundError("theater", theaterId);
      return theater;
    },
    /** A run's theater: the one named (the caller's own), or the caller's only theater when none is named. */
    async theaterFor(auth: Auth, named: string | undefined, field: string): Promise<string> {
      if (named !== undefined) return (await this.theater(auth, named)).theater_id;
      const own = await service().theaters.list({ owner: auth.userId });
      if (own.length === 1 && own[0]) return own[0].theater_id;
      throw new InvalidInputError(field, `is required: name the theater (you have ${own.length})`);
    },
    async run(auth: Auth, runId: string): Promise<void> {
      if (auth.admin) return;
      if ((await runOwner(service().store, runId)) !== auth.userId) throw new NotFoundError("run", runId);
    },
    async order(auth: Auth, orderId: string): Promise<void> {
      if (auth.admin) return;
      if ((await orderOwner(service().store, orderId)) !== auth.userId)
        throw new NotFoundError("order", orderId);
    },
  };
}

export type CommandAccess = ReturnType<typeof commandAccess>;
