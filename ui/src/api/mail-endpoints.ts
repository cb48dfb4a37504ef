import type { z } from "zod";
import type * as W from "../../../src/contracts/warden/index.js";

// The warden's mail routes: the sends a user's agent asked for, which leave only when the user confirms them.

type Out<S extends z.ZodType> = z.output<S>;

export type PendingMailSends = Out<typeof W.pendingMailSendsSchema>;
export type PendingMailSend = Out<typeof W.pendingMailSendSchema>;

export interface MailEndpoints {
  "GET /api/integrations/mail/sends": { response: PendingMailSends };
  "POST /api/integrations/mail/sends/:id/confirm": {
    params: { id: string };
    response: Out<typeof W.mailSentSchema>;
  };
  "POST /api/integrations/mail/sends/:id/cancel": {
    params: { id: string };
    response: Out<typeof W.mailSendCancelledSchema>;
  };
}
