import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { MemoryPromotion } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";

export interface PromotionState {
  pending: MemoryPromotion[];
  loading: boolean;
  /** The proposal being decided, while its request is on its way. */
  deciding: string | null;
  message: { level: "error" | "info"; text: string } | null;
}

export type PromotionAction =
  | { type: "load" }
  | { type: "decide"; id: string; decision: "approve" | "reject" };

/**
 * Proposals to move facts that answers kept recalling from logs/ and sessions/ into memory.md. Nothing is
 * written until the person approves; a rejected proposal is not made again.
 */
export function createPromotionController(
  api: ApiClient,
  hooks: { onApproved?(resultRef: string): void } = {},
) {
  const [state, setState] = createStore<PromotionState>({
    pending: [],
    loading: false,
    deciding: null,
    message: null,
  });
  const generations = createGenerations();

  async function load(): Promise<void> {
    const ticket = generations.next("list");
    setState("loading", true);
    const answer = await api.call("GET /api/memory/promotions", { query: { status: "pending" } });
    if (!generations.isCurrent("list", ticket)) return;
    if (answer.ok) setState({ pending: answer.data.proposals, loading: false });
    else
      setState({
        loading: false,
        message: { level: "error", text: `Proposals could not load: ${answer.error.message}` },
      });
  }

  async function decide(id: string, decision: "approve" | "reject"): Promise<void> {
    if (state.deciding) return;
    setState({ deciding: id, message: null });
    const answer =
      decision === "approve"
        ? await api.call("POST /api/memory/promotions/:id/approve", { params: { id } })
        : await api.call("POST /api/memory/promotions/:id/reject", { params: { id } });
    setState("deciding", null);
    if (!answer.ok) {
      const verb = decision === "approve" ? "approved" : "rejected";
      setState("message", { level: "error", text: `Not ${verb}: ${answer.error.message}` });
      // Someone else may have decided it meanwhile: show the list as it is now.
      return load();
    }
    setState("pending", (list) => list.filter((p) => p.id !== id));
    const ref = answer.data.result_ref;
    setState("message", {
      level: "info",
      text:
        decision === "approve" && ref
          ? `Added to ${ref.replace(/#L(\d+)-L(\d+)$/, " (lines $1–$2)")}.`
          : "Rejected.",
    });
    if (decision === "approve" && ref) hooks.onApproved?.(ref);
  }

  async function dispatch(action: PromotionAction): Promise<void> {
    if (action.type === "load") return load();
    return decide(action.id, action.decision);
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type PromotionController = ReturnType<typeof createPromotionController>;
