export {
  type ConversationNotice,
  type ConversationRef,
  type NoticeKind,
  notifyConversation,
} from "./conversation-notices.js";
export { forgetInConversations } from "./conversation-scrub.js";
export {
  type Conversation,
  type ConversationEntry,
  ConversationStore,
  type EntryRole,
  migrateConversationTables,
} from "./conversation-store.js";
