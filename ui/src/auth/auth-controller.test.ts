import { describe, expect, it } from "vitest";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createAuthController } from "./auth-controller.js";

const me = { user: "alice", admin: false, via: "cookie" as const };

describe("signing out everywhere", () => {
  it("asks the warden to end every session, then shows the sign-in form saying how many ended", async () => {
    const { client, calls } = fakeApi({
      "GET /api/me": () => ok(me),
      "POST /api/auth/logout-all": () => ok({ sessions_ended: 3 }),
    });
    const auth = createAuthController(client);
    await auth.dispatch({ type: "check" });
    expect(auth.state.phase).toBe("signed-in");

    await auth.dispatch({ type: "sign-out-everywhere" });
    expect(calls.map((c) => c.key)).toEqual(["GET /api/me", "POST /api/auth/logout-all"]);
    expect(auth.state).toMatchObject({ phase: "signed-out", me: null, busy: false });
    expect(auth.state.message).toBe(
      "You are signed out everywhere: 3 browser sessions ended. Your API token still works; rotate it to end it too.",
    );
    auth.dispose();
  });

  it("stays signed in and says why when the warden refuses", async () => {
    const { client } = fakeApi({
      "GET /api/me": () => ok(me),
      "POST /api/auth/logout-all": () =>
        refused(403, "forbidden", "requests signed in by cookie must come from the UI's origin"),
    });
    const auth = createAuthController(client);
    await auth.dispatch({ type: "check" });
    await auth.dispatch({ type: "sign-out-everywhere" });
    expect(auth.state).toMatchObject({ phase: "signed-in", me, busy: false });
    expect(auth.state.message).toMatch(/must come from the UI's origin/);
    auth.dispose();
  });

  it("a plain sign out ends only this session", async () => {
    const { client, calls } = fakeApi({
      "GET /api/me": () => ok(me),
      "POST /api/auth/logout": () => ok({ signed_out: true }),
    });
    const auth = createAuthController(client);
    await auth.dispatch({ type: "check" });
    await auth.dispatch({ type: "sign-out" });
    expect(calls.map((c) => c.key)).toEqual(["GET /api/me", "POST /api/auth/logout"]);
    expect(auth.state).toMatchObject({ phase: "signed-out", message: "You are signed out." });
    auth.dispose();
  });
});
