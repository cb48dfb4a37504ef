import type { z } from "zod";
import type {
  AarFile,
  IntegrateData,
  OrderSnapshotData,
  RunCreateData,
  RunCreateRequest,
  RunSnapshotData,
  runSnapshotDataSchema,
  TheaterCreateData,
  TheaterCreateRequest,
} from "../../../src/contracts/command/index.js";

// The command routes the warden serves under its own sign-in, typed from seed 000's contracts: the user comes
// from the session, so no body carries user_id. Nothing here restates a shape the contracts define.

export type Theater = Pick<TheaterCreateData, "theater_id" | "repo_path">;
export type RunSummary = RunSnapshotData;
export type Gate = IntegrateData["gates"][number];

/** One order of a run as the runs view shows it: its snapshot, its AAR's summary and its gates' output. */
export type OrderDetail = OrderSnapshotData & {
  aar_summary?: AarFile["summary"] | null;
  gates?: Gate[] | null;
};

// Contract objects are loose (unknown keys pass), so Omit over their index signature would lose every field:
// the run's fields are taken from the schema's shape instead.
type RunShape = (typeof runSnapshotDataSchema)["shape"];
export type RunDetail = { [K in Exclude<keyof RunShape, "orders">]: z.output<RunShape[K]> } & {
  orders: OrderDetail[];
};

export type RunStartBody = Omit<RunCreateRequest, "user_id" | "metadata"> & { theater_id?: string };
export type TheaterBody = Pick<TheaterCreateRequest, "theater_id"> & { repo_path?: string };

/** Lists may come bare or wrapped ({ runs: [...] }); the controller accepts both. */
type ListOf<K extends string, T> = T[] | { [key in K]: T[] };

export interface CommandEndpoints {
  "GET /api/theaters": { response: ListOf<"theaters", Theater> };
  "POST /api/theaters": { body: TheaterBody; response: TheaterCreateData };
  "GET /api/runs": { response: ListOf<"runs", RunSummary> };
  "POST /api/runs": { body: RunStartBody; response: RunCreateData };
  "GET /api/runs/:id": { params: { id: string }; response: RunDetail };
  "POST /api/runs/:id/cancel": { params: { id: string }; response: Partial<RunSnapshotData> };
}
