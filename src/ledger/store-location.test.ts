import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { locateStore } from "./store-location.js";

describe("where the ledger lives", () => {
  it("prefers --db, then --postgres, then IRONCLAW_LEDGER_URL, then IRONCLAW_HOME/ledger.db", () => {
    const env = { IRONCLAW_LEDGER_URL: "postgres://env/db", IRONCLAW_HOME: "/srv/ironclaw" };
    expect(locateStore({ db: "l.db", postgres: "postgres://flag/db" }, env, "/work")).toEqual({
      kind: "sqlite",
      path: "/work/l.db",
    });
    expect(locateStore({ postgres: "postgres://flag/db" }, env, "/work")).toEqual({
      kind: "postgres",
      url: "postgres://flag/db",
    });
    expect(locateStore({}, env, "/work")).toEqual({ kind: "postgres", url: "postgres://env/db" });
    expect(locateStore({}, { IRONCLAW_HOME: "/srv/ironclaw" }, "/work")).toEqual({
      kind: "sqlite",
      path: "/srv/ironclaw/ledger.db",
    });
  });

  it("defaults IRONCLAW_HOME to ~/.ironclaw", () => {
    expect(locateStore({}, {}, "/work")).toEqual({
      kind: "sqlite",
      path: join(homedir(), ".ironclaw", "ledger.db"),
    });
  });
});
