import { createSignal, onCleanup } from "solid-js";

export const VIEWS = [
  "chat",
  "memory",
  "instructions",
  "cron",
  "runs",
  "command",
  "soul",
  "skills",
  "mail",
  "audit",
  "usage",
  "messaging",
  "evolution",
  "settings",
  "admin",
] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  view: View;
  /** What follows the view in the hash (`#/memory/logs/2026-01-02.md` → `logs/2026-01-02.md`). */
  rest: string;
}

/** `#/cron` → { view: "cron" }; anything unknown is the chat. The hash keeps reloads on the warden's one page. */
export function parseHash(hash: string): Route {
  const [first = "", ...rest] = hash.replace(/^#\/?/, "").split("/");
  const view = (VIEWS as readonly string[]).includes(first) ? (first as View) : "chat";
  return { view, rest: decodeURIComponent(rest.join("/")) };
}

export function hrefOf(view: View, rest = ""): string {
  return `#/${view}${rest ? `/${rest.split("/").map(encodeURIComponent).join("/")}` : ""}`;
}

/** The current route as a signal that follows the address bar (back and forward included). */
export function useRoute(): () => Route {
  const [route, setRoute] = createSignal(parseHash(location.hash));
  const follow = () => setRoute(parseHash(location.hash));
  window.addEventListener("hashchange", follow);
  onCleanup(() => window.removeEventListener("hashchange", follow));
  return route;
}
