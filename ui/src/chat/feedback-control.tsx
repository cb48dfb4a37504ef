import { Show } from "solid-js";
import type { FeedbackController, Rating } from "./feedback-controller.js";

const LABEL: Record<Rating, string> = { up: "Good answer", down: "Bad answer" };

/**
 * Under an answer stored as entry `seq`: thumbs up and down; the chosen thumb opens an optional comment and a
 * Send; once the warden has it, the answer says the rating was recorded.
 */
export function FeedbackControl(props: { seq: number; feedback: FeedbackController }) {
  const recorded = () => props.feedback.state.recorded[props.seq];
  const draft = () => {
    const d = props.feedback.state.draft;
    return d?.seq === props.seq ? d : undefined;
  };
  const thumb = (rating: Rating) => (
    <button
      type="button"
      class="feedback-thumb"
      aria-label={LABEL[rating]}
      aria-pressed={(draft()?.rating ?? recorded()?.rating) === rating}
      onClick={() => void props.feedback.dispatch({ type: "choose", seq: props.seq, rating })}
    >
      {rating === "up" ? "👍" : "👎"}
    </button>
  );
  return (
    <fieldset class="feedback">
      <legend class="visually-hidden">Rate this answer</legend>
      {thumb("up")}
      {thumb("down")}
      <Show when={!draft() && recorded()}>
        <span class="feedback-recorded muted" role="status">
          Feedback recorded
        </span>
      </Show>
      <Show when={draft()}>
        {(d) => (
          <form
            class="feedback-form"
            onSubmit={(e) => {
              e.preventDefault();
              void props.feedback.dispatch({ type: "send" });
            }}
          >
            <label class="visually-hidden" for={`feedback-comment-${props.seq}`}>
              Comment (optional)
            </label>
            <input
              id={`feedback-comment-${props.seq}`}
              type="text"
              maxLength={2000}
              placeholder="What was good or missing? (optional)"
              value={d().comment}
              onInput={(e) => void props.feedback.dispatch({ type: "comment", text: e.currentTarget.value })}
            />
            <button type="submit" disabled={d().sending}>
              {d().sending ? "Sending…" : "Send"}
            </button>
            <button type="button" onClick={() => void props.feedback.dispatch({ type: "cancel" })}>
              Cancel
            </button>
            <Show when={d().error}>
              <span class="notice error" role="alert">
                {d().error}
              </span>
            </Show>
          </form>
        )}
      </Show>
    </fieldset>
  );
}
