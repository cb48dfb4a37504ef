import type { z } from "zod";
import type * as W from "../../../src/contracts/warden/index.js";
import type { CommandEndpoints } from "./command-endpoints.js";
import type { EvolutionEndpoints } from "./evolution-endpoints.js";
import type { MailEndpoints } from "./mail-endpoints.js";
import type { SettingsEndpoints } from "./settings-endpoints.js";
import type { SkillsEndpoints } from "./skills-endpoints.js";

// Every warden route the UI calls, typed from the schemas the routes themselves validate with
// (src/contracts/warden). Nothing here restates a shape: a change to a contract changes these types.

type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;
type Id = { id: string };

export type Me = Out<typeof W.meSchema>;
export type Session = Out<typeof W.sessionSchema>;
export type SessionEntry = Out<typeof W.sessionEntrySchema>;
export type AgentInfo = Out<typeof W.agentInfoSchema>;
export type ChatEvent = Out<typeof W.chatEventSchema>;
export type WsClientMessage = In<typeof W.wsClientMessageSchema>;
export type WsServerMessage = Out<typeof W.wsServerMessageSchema>;
export type BrainEntry = Out<typeof W.brainListingSchema>["entries"][number];
export type SoulChange = Out<typeof W.soulChangeSchema>;
export type SoulChangeDetail = Out<typeof W.soulChangeDetailSchema>;
export type MemoryHit = Out<typeof W.memorySearchAnswerSchema>["hits"][number];
export type MemoryIndexStatus = Out<typeof W.memoryStatusAnswerSchema>;
export type SearchMode = NonNullable<In<typeof W.memorySearchParamsSchema>["mode"]>;
export type MemoryPromotion = Out<typeof W.promotionAnswerSchema>;
export type MemoryForgetResult = Out<typeof W.memoryForgetResultSchema>;
export type CronJobState = Out<typeof W.cronJobListSchema>["jobs"][number];
export type CronJobInput = In<typeof W.cronJobCreateBodySchema>;
export type ToolAuditEntry = Out<typeof W.toolAuditAnswerSchema>["entries"][number];
export type ToolAuditFilter = In<typeof W.toolAuditParamsSchema>;
export type WardenAuditRecord = Out<typeof W.wardenAuditRecordSchema>;
export type User = Out<typeof W.userSchema>;
export type CellStatusList = Out<typeof W.cellStatusListSchema>;
export type UsageReport = Out<typeof W.usageReportSchema>;
export type BudgetOverview = Out<typeof W.budgetOverviewSchema>;
export type BudgetStatus = BudgetOverview["status"][number];
export type BudgetAlert = Out<typeof W.budgetAlertSchema>;
export type CertifiedTurn = Out<typeof W.certifiedTurnSchema>;
export type CertificateDetail = Out<typeof W.certificateDetailSchema>;
export type BrainHistoryEntry = Out<typeof W.brainHistoryEntrySchema>;
export type BrainHistoryDiff = Out<typeof W.brainHistoryDiffSchema>;
export type PairingCode = Out<typeof W.pairingCodeSchema>;

export interface Endpoints
  extends CommandEndpoints,
    EvolutionEndpoints,
    MailEndpoints,
    SettingsEndpoints,
    SkillsEndpoints {
  "GET /api/me": { response: Me };
  "POST /api/channels/pairing-code": { response: PairingCode };
  "POST /api/auth/login": { body: In<typeof W.tokenLoginBodySchema>; response: Me };
  "POST /api/auth/logout": { response: Out<typeof W.logoutAnswerSchema> };
  "POST /api/auth/logout-all": { response: Out<typeof W.logoutAllAnswerSchema> };
  "GET /api/sessions": { response: Session[] };
  "GET /api/sessions/:id": { params: Id; response: Out<typeof W.sessionDetailSchema> };
  "PATCH /api/sessions/:id": { params: Id; body: In<typeof W.sessionPatchBodySchema>; response: Session };
  "DELETE /api/sessions/:id": { params: Id; response: Out<typeof W.deletedAnswerSchema> };
  "GET /api/agents": { response: AgentInfo };
  "GET /api/brain/files": {
    query: In<typeof W.brainPathQuerySchema>;
    response: Out<typeof W.brainListingSchema>;
  };
  "GET /api/brain/file": {
    query: In<typeof W.brainFileQuerySchema>;
    response: Out<typeof W.brainFileSchema>;
  };
  "PUT /api/brain/file": {
    body: In<typeof W.brainWriteBodySchema>;
    response: Out<typeof W.brainWriteResultSchema>;
  };
  "DELETE /api/brain/file": {
    query: In<typeof W.brainFileQuerySchema>;
    response: Out<typeof W.brainDeleteResultSchema>;
  };
  "GET /api/memory/search": {
    query: In<typeof W.memorySearchParamsSchema>;
    response: Out<typeof W.memorySearchAnswerSchema>;
  };
  "GET /api/memory/status": { response: MemoryIndexStatus };
  "GET /api/memory/promotions": {
    query: In<typeof W.promotionListParamsSchema>;
    response: Out<typeof W.promotionListAnswerSchema>;
  };
  "POST /api/memory/promotions/:id/approve": { params: Id; response: MemoryPromotion };
  "POST /api/memory/promotions/:id/reject": { params: Id; response: MemoryPromotion };
  "POST /api/memory/forget": { body: In<typeof W.memoryForgetBodySchema>; response: MemoryForgetResult };
  "GET /api/cron/jobs": { response: Out<typeof W.cronJobListSchema> };
  "POST /api/cron/jobs": { body: CronJobInput; response: CronJobState };
  "PUT /api/cron/jobs/:id": {
    params: Id;
    body: In<typeof W.cronJobUpdateBodySchema>;
    response: CronJobState;
  };
  "DELETE /api/cron/jobs/:id": { params: Id; response: Out<typeof W.deletedAnswerSchema> };
  "POST /api/cron/jobs/:id/run": { params: Id; response: Out<typeof W.cronRunAnswerSchema> };
  "GET /api/soul/pending": { response: SoulChange[] };
  "GET /api/soul/changes/:id": { params: Id; response: SoulChangeDetail };
  "POST /api/soul/changes/:id/approve": { params: Id; response: SoulChange };
  "POST /api/soul/changes/:id/reject": { params: Id; response: SoulChange };
  "GET /api/audit/tools": { query: ToolAuditFilter; response: Out<typeof W.toolAuditAnswerSchema> };
  "GET /api/audit": { query: In<typeof W.wardenAuditQuerySchema>; response: WardenAuditRecord[] };
  "GET /api/users": { response: User[] };
  "POST /api/users": { body: In<typeof W.userCreateBodySchema>; response: Out<typeof W.userTokenSchema> };
  "DELETE /api/users/:name": { params: { name: string }; response: { removed: string } };
  "POST /api/users/:name/token": { params: { name: string }; response: Out<typeof W.userTokenSchema> };
  "GET /api/admin/cells": { response: CellStatusList };
  "POST /api/admin/cells/:user/restart": {
    params: { user: string };
    response: Out<typeof W.cellStatusSchema>;
  };
  "GET /api/admin/providers": { response: Out<typeof W.providerNamesSchema> };
  "GET /api/usage": { query: In<typeof W.usageQuerySchema>; response: UsageReport };
  "GET /api/budgets": { query: { user?: string }; response: BudgetOverview };
  "GET /api/budgets/alerts": { query: In<typeof W.budgetAlertQuerySchema>; response: BudgetAlert[] };
  "GET /api/attest/certificates": {
    query: In<typeof W.certificateListQuerySchema>;
    response: Out<typeof W.certifiedTurnListSchema>;
  };
  "GET /api/attest/certificates/:job_id": { params: { job_id: string }; response: CertificateDetail };
  "GET /api/brain/history": { response: Out<typeof W.brainHistoryListSchema> };
  "GET /api/brain/history/diff": {
    query: In<typeof W.brainHistoryDiffQuerySchema>;
    response: BrainHistoryDiff;
  };
  "POST /api/brain/history/restore": {
    body: In<typeof W.brainHistoryRestoreBodySchema>;
    response: Out<typeof W.brainHistoryRestoreSchema>;
  };
  "POST /api/feedback": {
    body: In<typeof W.answerFeedbackBodySchema>;
    response: Out<typeof W.answerFeedbackResultSchema>;
  };
}

export type EndpointKey = keyof Endpoints;
