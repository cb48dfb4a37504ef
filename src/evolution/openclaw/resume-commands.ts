/** A word as a POSIX shell reads it back unchanged: bare when it is plainly safe, single-quoted otherwise. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9@%_+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The commands the next operator runs to pick the session up, exactly as typed: inspect the raw-to-projected
 * chain of this state directory, read the session's evidence report, and replay the handoff bundle this import
 * wrote into the state directory of whoever runs it (IRONCLAW_HOME/evolution, or add --state), after a restart
 * or on another host.
 */
export function resumeCommands(stateDir: string, bundlePath: string): Record<string, string> {
  const bundle = shellWord(bundlePath);
  return {
    inspect: `ironclaw evolution inspect --state ${shellWord(stateDir)} --write-report`,
    session_report: `ironclaw evolution report --file ${bundle} --format md`,
    replay_bundle: `ironclaw evolution openclaw-import --file ${bundle}`,
  };
}
