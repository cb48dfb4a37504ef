import { createSignal } from "solid-js";

export type ThemeChoice = "system" | "light" | "dark";
const KEY = "ironclaw.theme";
const ORDER: ThemeChoice[] = ["system", "light", "dark"];

/**
 * Light and dark: the system's preference unless the user picked one. The choice is a data attribute on <html>
 * that the stylesheet reads (set from script, which the CSP allows; no inline style is involved).
 */
export function createTheme() {
  const stored = localStorage.getItem(KEY);
  const [choice, setChoice] = createSignal<ThemeChoice>(
    ORDER.includes(stored as ThemeChoice) ? (stored as ThemeChoice) : "system",
  );
  const apply = (value: ThemeChoice) => {
    if (value === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = value;
  };
  apply(choice());
  return {
    choice,
    cycle() {
      const next = ORDER[(ORDER.indexOf(choice()) + 1) % ORDER.length] ?? "system";
      setChoice(next);
      localStorage.setItem(KEY, next);
      apply(next);
    },
  };
}
