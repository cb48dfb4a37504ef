import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

interface Probe {
  ok: boolean;
  detail: string;
}

/** Opens an in-memory database and exercises FTS5 and sqlite-vec for real. */
export async function probeSqlite(): Promise<{ sqlite: Probe; fts5: Probe; vec: Probe }> {
  let db: Database.Database;
  try {
    db = new Database(":memory:");
  } catch (cause) {
    const failed = { ok: false, detail: `better-sqlite3 does not load: ${(cause as Error).message}` };
    return { sqlite: failed, fts5: failed, vec: failed };
  }
  try {
    const version = db.prepare("select sqlite_version() as v").get() as { v: string };
    return { sqlite: { ok: true, detail: version.v }, fts5: probeFts5(db), vec: probeVec(db) };
  } finally {
    db.close();
  }
}

function probeFts5(db: Database.Database): Probe {
  try {
    db.exec(
      "create virtual table probe_fts using fts5(body); insert into probe_fts values ('sovereign memory')",
    );
    const hit = db.prepare("select count(*) as n from probe_fts where probe_fts match 'memory'").get() as {
      n: number;
    };
    return hit.n === 1 ? { ok: true, detail: "ok" } : { ok: false, detail: "FTS5 query found nothing" };
  } catch (cause) {
    return { ok: false, detail: `FTS5 unavailable: ${(cause as Error).message}` };
  }
}

function probeVec(db: Database.Database): Probe {
  try {
    sqliteVec.load(db);
    db.exec("create virtual table probe_vec using vec0(embedding float[2])");
    db.prepare("insert into probe_vec(rowid, embedding) values (1, ?)").run(JSON.stringify([1, 0]));
    const row = db
      .prepare("select vec_version() as v from probe_vec where embedding match ? and k = 1")
      .get(JSON.stringify([1, 0])) as { v: string } | undefined;
    return row ? { ok: true, detail: row.v } : { ok: false, detail: "vec0 query returned nothing" };
  } catch (cause) {
    return { ok: false, detail: `sqlite-vec unavailable: ${(cause as Error).message}` };
  }
}
