export { GitError, type GitOptions, type GitResult, hostGit } from "./git/host-git.js";
