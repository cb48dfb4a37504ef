import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { SkillList, SkillReview } from "../api/skills-endpoints.js";
import { createGenerations } from "../shared/generation.js";
import type { NoticeMessage } from "../shared/notice.js";

export interface SkillsState {
  list: SkillList | null;
  /** The names of the user's stored secrets (never their values): which a skill needs and lacks. */
  secretNames: string[];
  /** The upload under review: what it asks for, waiting for the person's approval. */
  review: SkillReview | null;
  /** The skill whose removal waits for a confirmation. */
  confirmRemove: string | null;
  message: NoticeMessage | null;
  loading: boolean;
  /** An upload, approval or removal is on its way: the buttons wait for it. */
  busy: boolean;
}

export type SkillsAction =
  | { type: "start" }
  | { type: "review"; file: Blob; filename?: string }
  | { type: "approve" }
  | { type: "cancel-review" }
  | { type: "ask-remove"; name: string }
  | { type: "cancel-remove" }
  | { type: "remove"; name: string }
  | { type: "set-secret"; name: string; value: string };

/**
 * The Skills screen: the user's installed skills with what each may reach, and the consent flow: an archive is
 * uploaded for review, its requests are shown, and only an approval of exactly that review (its SHA-256) installs.
 */
export function createSkillsController(api: ApiClient) {
  const [state, setState] = createStore<SkillsState>({
    list: null,
    secretNames: [],
    review: null,
    confirmRemove: null,
    message: null,
    loading: false,
    busy: false,
  });
  const generations = createGenerations();
  const fail = (text: string) => setState("message", { level: "error", text });

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    setState("loading", true);
    const [answer, secrets] = await Promise.all([api.call("GET /api/skills"), api.call("GET /api/secrets")]);
    if (!generations.isCurrent("load", ticket)) return;
    setState("loading", false);
    if (secrets.ok)
      setState(
        "secretNames",
        secrets.data.secrets.map((s) => s.name),
      );
    if (!answer.ok) return fail(`Your skills could not load: ${answer.error.message}`);
    setState("list", answer.data);
  }

  /** Runs one step with the buttons held, then reloads the list. */
  async function step(work: () => Promise<void>): Promise<void> {
    setState("busy", true);
    try {
      await work();
    } finally {
      setState("busy", false);
    }
    await load();
  }

  async function review(file: Blob, filename: string | undefined): Promise<void> {
    setState({ review: null, busy: true });
    const ticket = generations.next("review");
    // The file's name names a flat archive's skill folder; anything else is left to the warden's default.
    const named = filename && /\.(tar\.gz|tgz|tar)$/.test(filename) ? { filename } : {};
    const answer = await api.call("POST /api/skills/review", { body: file, query: named });
    setState("busy", false);
    if (!generations.isCurrent("review", ticket)) return;
    if (!answer.ok) return fail(`The skill was refused: ${answer.error.message}`);
    setState("review", answer.data);
  }

  async function approve(): Promise<void> {
    const reviewed = state.review;
    if (!reviewed) return;
    await step(async () => {
      const answer = await api.call("POST /api/skills/install", { body: { sha256: reviewed.sha256 } });
      if (!answer.ok) return fail(`${reviewed.name} was not installed: ${answer.error.message}`);
      setState({
        review: null,
        message: {
          level: "info",
          text: `Installed ${answer.data.name}, pinned to ${short(answer.data.sha256)}.`,
        },
      });
    });
  }

  async function remove(name: string): Promise<void> {
    setState("confirmRemove", null);
    await step(async () => {
      const answer = await api.call("DELETE /api/skills/:name", { params: { name } });
      if (!answer.ok) return fail(`${name} was not removed: ${answer.error.message}`);
      setState("message", { level: "info", text: `Removed ${name}.` });
    });
  }

  async function setSecret(name: string, value: string): Promise<void> {
    await step(async () => {
      const answer = await api.call("PUT /api/secrets/:name", { params: { name }, body: { value } });
      if (!answer.ok) return fail(`${name} was not stored: ${answer.error.message}`);
      setState("message", {
        level: "info",
        text: `${name} is stored with the warden; it is not shown again.`,
      });
    });
  }

  async function dispatch(action: SkillsAction): Promise<void> {
    setState("message", null);
    switch (action.type) {
      case "start":
        return load();
      case "review":
        return review(action.file, action.filename);
      case "approve":
        return approve();
      case "cancel-review":
        generations.next("review");
        return void setState("review", null);
      case "ask-remove":
        return void setState("confirmRemove", action.name);
      case "cancel-remove":
        return void setState("confirmRemove", null);
      case "remove":
        return remove(action.name);
      case "set-secret":
        return setSecret(action.name, action.value);
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

/** The first 12 hex digits of a hash: enough to tell versions apart on screen. */
export function short(sha256: string): string {
  return sha256.slice(0, 12);
}

export type SkillsController = ReturnType<typeof createSkillsController>;
