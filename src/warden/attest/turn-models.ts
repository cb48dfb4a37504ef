/**
 * The models a user's cell called while each of their turns ran, as the warden's model proxy saw them: the
 * warden does not choose a turn's model (the brain's configuration does, inside the cell), so its certificate
 * names what was called. Calls of two turns of one user running at once are counted for both.
 */
export class TurnModels {
  private readonly open = new Map<string, Set<Set<string>>>();

  /** Starts watching for one turn; the function it returns stops and names the models, sorted, comma-joined. */
  begin(userId: string): () => string {
    const seen = new Set<string>();
    const turns = this.open.get(userId) ?? new Set();
    turns.add(seen);
    this.open.set(userId, turns);
    return () => {
      turns.delete(seen);
      if (turns.size === 0 && this.open.get(userId) === turns) this.open.delete(userId);
      return [...seen].sort().join(",") || "none";
    };
  }

  note(call: { userId: string; provider: string; model: string }): void {
    for (const seen of this.open.get(call.userId) ?? []) seen.add(`${call.provider}/${call.model}`);
  }
}
