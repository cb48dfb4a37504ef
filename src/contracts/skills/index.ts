import type { Contract } from "../registry.js";
import { skillMdContract } from "./skill-md.js";

export {
  SKILL_EGRESS_METHODS,
  type SkillEgressDeclaration,
  skillEgressSchema,
} from "./skill-egress.js";
export {
  ironclawMetadataSchema,
  openclawMetadataSchema,
  type SkillFrontmatter,
  skillFrontmatterSchema,
  skillMetadataSchema,
  skillName,
} from "./skill-frontmatter.js";
export {
  decodeSkillFrontmatter,
  parseSkillMd,
  SKILL_MD_KIND,
  type SkillMd,
  skillMdContract,
  splitSkillMd,
} from "./skill-md.js";
export {
  type SkillRequirements,
  skillAllowedTools,
  skillEgress,
  skillInstallSpecs,
  skillRequirements,
} from "./skill-requirements.js";

export const skillContracts: readonly Contract[] = [skillMdContract];
