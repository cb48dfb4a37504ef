import type { z } from "zod";
import type * as W from "../../../src/contracts/warden/index.js";

// The warden's skills routes, and the secrets routes the Skills screen sets a skill's secrets with, typed from
// the schemas the routes validate with.

type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;

export type SkillList = Out<typeof W.skillListSchema>;
export type InstalledSkill = Out<typeof W.installedSkillSchema>;
export type SkillReview = Out<typeof W.skillReviewSchema>;
export type SkillReach = Out<typeof W.skillReachSchema>;
export type SecretsOverview = Out<typeof W.secretsOverviewSchema>;

export interface SkillsEndpoints {
  "GET /api/skills": { response: SkillList };
  /** The body is the archive itself (a file the user picked), sent as its bytes. */
  "POST /api/skills/review": {
    query: In<typeof W.skillReviewQuerySchema>;
    body: Blob;
    response: SkillReview;
  };
  "POST /api/skills/install": {
    body: In<typeof W.skillInstallBodySchema>;
    response: InstalledSkill;
  };
  "DELETE /api/skills/:name": { params: { name: string }; response: Out<typeof W.skillRemovedSchema> };
  "GET /api/secrets": { response: SecretsOverview };
  /** The value goes to the warden once; no answer ever carries it back. */
  "PUT /api/secrets/:name": {
    params: { name: string };
    body: In<typeof W.secretPutBodySchema>;
    response: Out<typeof W.secretInfoSchema>;
  };
}
