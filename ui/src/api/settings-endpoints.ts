import type { z } from "zod";
import type * as W from "../../../src/contracts/warden/index.js";

// The warden's settings routes: changes to ironclawd.toml admins' agents proposed, applied only when the proposer
// confirms them here; and the form for the secrets a proposal names by variable.

type Out<S extends z.ZodType> = z.output<S>;

export type SettingsProposal = Out<typeof W.settingsProposalSchema>;

export interface SettingsEndpoints {
  "GET /api/settings/proposals": { response: Out<typeof W.settingsProposalsSchema> };
  "POST /api/settings/proposals/:id/confirm": { params: { id: string }; response: SettingsProposal };
  "POST /api/settings/proposals/:id/reject": { params: { id: string }; response: SettingsProposal };
  "POST /api/settings/proposals/:id/revert": { params: { id: string }; response: SettingsProposal };
  "PUT /api/settings/variables/:name": {
    params: { name: string };
    body: Out<typeof W.settingsVariableBodySchema>;
    response: Out<typeof W.settingsVariableSetSchema>;
  };
}
