export { CALDAV_PASSWORD_SECRET, type CaldavRunnerOptions, createCaldavRunner } from "./caldav-runner.js";
export { createGithubRunner, GITHUB_TOKEN_SECRET, type GithubRunnerOptions } from "./github-runner.js";
export { createHostIntegrations, type HostIntegrationsOptions } from "./host-integrations.js";
export {
  createIntegrationDesk,
  type IntegrationDesk,
  type IntegrationDeskOptions,
  type IntegrationReply,
} from "./integration-desk.js";
export type { IntegrationOutcome, IntegrationRunner } from "./integration-runner.js";
export {
  createMailRunner,
  MAIL_PASSWORD_SECRET,
  type MailRunner,
  type MailRunnerOptions,
  type MailSends,
  type PendingSendView,
} from "./mail-runner.js";
