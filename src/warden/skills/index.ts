export { CELL_IMAGE_BIN_DIRS, type SkillAvailability, skillAvailability } from "./skill-availability.js";
export type { SkillFile } from "./skill-folder.js";
export { SKILL_LIMITS, type SkillLimits, SkillRefusal } from "./skill-refusal.js";
export {
  IGNORED_INSTALL_WHY,
  type ReviewedSkill,
  reviewSource,
  type SkillAsks,
  type SkillHostAsk,
  type SkillReview,
} from "./skill-review.js";
export {
  type InstalledSkill,
  type SkillApproval,
  SkillStore,
  type SkillStoreOptions,
} from "./skill-store.js";
export { readSkillsLock, type SkillLockEntry, type SkillsLock } from "./skills-lock.js";
