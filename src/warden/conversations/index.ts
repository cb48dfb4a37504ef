export { forgetInConversations } from "./conversation-scrub.js";
export { ConversationStore, migrateConversationTables } from "./conversation-store.js";
