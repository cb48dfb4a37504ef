import type { InstalledSkillView, SkillReach, SkillReviewView } from "../../contracts/index.js";
import type { InstalledSkill, SkillAsks, SkillReview } from "../skills/index.js";

// The store's skills as the API shows them: snake_case, every list present, nothing of the host's paths.

export function reachView(asks: SkillAsks): SkillReach {
  return {
    hosts: asks.hosts,
    secrets: asks.secrets,
    env: asks.env,
    bins: asks.bins,
    any_bins: asks.anyBins,
    allowed_tools: asks.allowedTools,
  };
}

export function reviewView(
  user: string,
  review: SkillReview,
  installed: InstalledSkill | undefined,
): SkillReviewView {
  return {
    user,
    name: review.name,
    description: review.description,
    sha256: review.sha256,
    files: review.files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })),
    reach: reachView(review.asks),
    ignored_installers: review.asks.ignoredInstall,
    replaces: installed ? { sha256: installed.sha256, approved_at: installed.approvedAt } : null,
  };
}

export function installedView(skill: InstalledSkill): InstalledSkillView {
  return {
    name: skill.name,
    description: skill.description,
    sha256: skill.sha256,
    approved_at: skill.approvedAt,
    approved_by: skill.approvedBy,
    available: skill.available,
    unavailable_reason: skill.reason ?? null,
    reach: reachView(skill.asks),
  };
}
