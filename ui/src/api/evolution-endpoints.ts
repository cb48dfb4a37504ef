import type { z } from "zod";
import type * as E from "../../../src/contracts/evolution/index.js";

// The warden's evolution governance routes (admins), typed from the schemas the routes validate with.

type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;

export type GovernanceReport = Out<typeof E.governanceReportSchema>;
export type GovernanceRow = Out<typeof E.governanceRowSchema>;
export type ProposalDetail = Out<typeof E.proposalDetailSchema>;
export type EvidenceLink = Out<typeof E.evidenceLinkSchema>;
export type PromotionResult = Out<typeof E.promotionResultSchema>;

export interface EvolutionEndpoints {
  "GET /api/evolution/governance": { response: GovernanceReport };
  "GET /api/evolution/proposals/:id": { params: { id: string }; response: ProposalDetail };
  "POST /api/evolution/review": {
    body: In<typeof E.governanceReviewBodySchema>;
    response: Out<typeof E.reviewResultSchema>;
  };
  "POST /api/evolution/promote": {
    body: In<typeof E.governancePromoteBodySchema>;
    response: PromotionResult;
  };
  "POST /api/evolution/rollback": {
    body: In<typeof E.governanceRollbackBodySchema>;
    response: Out<typeof E.rollbackResultSchema>;
  };
}
