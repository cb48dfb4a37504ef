export { type EscalationActor, EscalationBook, type EscalationBookDeps } from "./escalation-book.js";
export { ackCommand } from "./escalation-command.js";
export { escalationNotice } from "./escalation-notice.js";
export { EscalationRelay, type EscalationRelayDeps } from "./escalation-relay.js";
