import { For, type JSX, Show } from "solid-js";
import type { SkillReach } from "../api/skills-endpoints.js";

/**
 * What a skill may reach, the same in the consent panel and beside an installed skill: the hosts its secrets go
 * to (and in which header), the secrets and variables it needs, the programs and tools it uses.
 */
export function SkillReachList(props: { reach: SkillReach }) {
  const r = () => props.reach;
  return (
    <dl class="facts skill-reach">
      <dt>Hosts</dt>
      <dd>
        <Listed items={r().hosts} none="none: it reaches no host with a secret">
          {(h) => (
            <li>
              <code>{h.host}</code> gets <code>{h.secret}</code> in <code>{h.header}</code> as{" "}
              <code>{h.format}</code>
              <Show when={h.methods}>{(m) => <> ({m().join(", ")})</>}</Show>
              <Show when={h.paths}>{(p) => <> under {p().join(", ")}</>}</Show>
            </li>
          )}
        </Listed>
      </dd>
      <dt>Secrets</dt>
      <dd>
        <Listed items={r().secrets} none="none">
          {(s) => (
            <li>
              <code>{s}</code>
            </li>
          )}
        </Listed>
      </dd>
      <dt>Environment</dt>
      <dd>
        <Listed items={r().env} none="none">
          {(e) => (
            <li>
              <code>{e}</code>
            </li>
          )}
        </Listed>
      </dd>
      <dt>Programs</dt>
      <dd>
        <Listed items={programs(r())} none="none">
          {(b) => <li>{b}</li>}
        </Listed>
      </dd>
      <dt>Tools</dt>
      <dd>
        <Listed items={r().allowed_tools} none="any the agent has (it names none)">
          {(t) => (
            <li>
              <code>{t}</code>
            </li>
          )}
        </Listed>
      </dd>
    </dl>
  );
}

/** Every program it needs, then one line for the set of which any one will do. */
function programs(reach: SkillReach): string[] {
  const anyOf = reach.any_bins.length > 0 ? [`one of ${reach.any_bins.join(", ")}`] : [];
  return [...reach.bins, ...anyOf];
}

function Listed<T>(props: { items: readonly T[]; none: string; children: (item: T) => JSX.Element }) {
  return (
    <Show when={props.items.length > 0} fallback={<span class="muted">{props.none}</span>}>
      <ul class="plain-list">
        <For each={props.items}>{props.children}</For>
      </ul>
    </Show>
  );
}
