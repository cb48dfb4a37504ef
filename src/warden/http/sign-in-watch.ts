import type Database from "better-sqlite3";
import type { UserStore } from "../user-store.js";

/** A connection that stays open after its sign-in was checked (a WebSocket). */
export interface WatchedConnection {
  userId: string;
  /** Re-checks the credential the connection was opened with (Authenticator.stillSignedIn). */
  stillSignedIn(): Promise<boolean>;
  /** Closes the connection; called once, when its sign-in has ended. */
  end(): void;
}

export interface SignInWatchOptions {
  db: Database.Database;
  users: UserStore;
  /** How often host.db is looked at for changes made by another process (`ironclaw user …`). */
  pollMs?: number;
}

/**
 * Closes open connections whose sign-in has ended. This process's own rotations, removals and sign-outs are
 * announced by the UserStore and acted on at once; those of another process (the CLI writing the same host.db)
 * show as a new `PRAGMA data_version`, looked at every pollMs, which costs one pragma while nothing changes.
 */
export class SignInWatch {
  private readonly open = new Set<WatchedConnection>();
  private readonly stopListening: () => void;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | undefined;
  private dataVersion: unknown;

  constructor(private readonly options: SignInWatchOptions) {
    this.pollMs = options.pollMs ?? 1000;
    this.stopListening = options.users.onSignInsEnded((userId) => this.recheck((c) => c.userId === userId));
  }

  /** Watches a connection until the returned function is called (when it closes). */
  add(connection: WatchedConnection): () => void {
    this.open.add(connection);
    if (!this.timer) {
      this.dataVersion = this.readDataVersion();
      this.timer = setInterval(() => this.poll(), this.pollMs);
      this.timer.unref();
    }
    return () => this.remove(connection);
  }

  close(): void {
    this.stopListening();
    clearInterval(this.timer);
    this.timer = undefined;
    this.open.clear();
  }

  private remove(connection: WatchedConnection): void {
    this.open.delete(connection);
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private poll(): void {
    const version = this.readDataVersion();
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.recheck(() => true);
  }

  private recheck(which: (connection: WatchedConnection) => boolean): void {
    for (const connection of [...this.open]) {
      if (!which(connection)) continue;
      // A check that throws (the database going away at shutdown) proves nothing: the connection is ended.
      void connection.stillSignedIn().then(
        (signedIn) => signedIn || this.end(connection),
        () => this.end(connection),
      );
    }
  }

  private end(connection: WatchedConnection): void {
    if (!this.open.has(connection)) return;
    this.remove(connection);
    connection.end();
  }

  /** Undefined once the database is closed: the warden is stopping and its connections with it. */
  private readDataVersion(): unknown {
    try {
      return this.options.db.pragma("data_version", { simple: true });
    } catch {
      return undefined;
    }
  }
}
