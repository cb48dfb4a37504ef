import { createSignal } from "solid-js";

// Bumped when a held soul change is decided, so the navigation's "waiting" badge and banner look again.
const [soulVersion, setSoulVersion] = createSignal(0);

export { soulVersion };
export const noteSoulDecided = () => setSoulVersion((v) => v + 1);
