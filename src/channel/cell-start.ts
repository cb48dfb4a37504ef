// What both sides of a cell agree on before the first frame: which handler the inmate serves, and the names of
// the bundle's files that the host's image builder writes and the inmate's loader reads.

/**
 * The handlers an inmate can serve: the agent, command's order worker (the agent without a memory of its own:
 * seed 001's stateless worker), command's gate (an order's acceptance commands over its merged tree), and two
 * small ones the host's tests and `ironclaw cell` use.
 */
export const GUEST_HANDLERS = ["agent", "order", "gate", "echo", "shell"] as const;
export type GuestHandlerName = (typeof GUEST_HANDLERS)[number];

/** The bundled runtime beside the loader in dist/cell. */
export const RUNTIME_FILE = "runtime.cjs";
/** Set to 1 by the build's warm-up run: the loader writes the code cache when the runtime exits. */
export const WRITE_CACHE_ENV = "IRONCLAW_WRITE_COMPILE_CACHE";
