// The journeys of skills, secrets and integrations that run real cells, real servers (Radicale, Postfix and
// Dovecot, the GitHub stand-in) or the real `ironclaw` binary (secrets, skills) for half a minute to a minute each. `npm run
// test:integrations` (test/integrations/vitest.config.ts) runs them, in CI in the leg beside the microVM one;
// the default suite leaves them out and keeps the fast tests of the same code: the runners against the real
// servers (src/warden/integrations/mail-runner.test.ts, test/warden/caldav-runner.test.ts,
// test/warden/github-runner.test.ts), the proxy engine's attack suite (test/egress/) and the skills routes.
// `ironclaw setup` driven on a pseudo-terminal to a first answer is here too (about a minute); its --yes paths stay
// in the default suite (test/cli/setup.test.ts).
export const INTEGRATION_JOURNEYS = [
  "test/cli/secrets.test.ts",
  "test/skills/skills-cli.test.ts",
  "test/cells/skills-mount.test.ts",
  "test/warden/mail-tools.test.ts",
  "test/warden/calendar-tools.test.ts",
  "test/warden/github-tools.test.ts",
  "test/warden/egress-proxy-cell.test.ts",
  "test/cli/setup-journey.test.ts",
];
