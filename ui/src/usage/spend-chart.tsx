import { For, Show } from "solid-js";
import { type DaySpend, scaleTop, usd, usdMark } from "./spend-days.js";

// Drawing units of the chart's viewBox; the SVG scales to its box, so these are proportions, not pixels.
const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 56;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 28;

const shortDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
/** "Nov 3" for a YYYY-MM-DD day; the day is a calendar date already, so it is read in UTC. */
function dayLabel(day: string): string {
  return shortDay.format(new Date(`${day}T00:00:00Z`));
}

/** A sentence that says what the bars show, for screen readers and as the chart's caption. */
export function describeSpend(days: readonly DaySpend[], cap: number | undefined): string {
  if (days.length === 0) return "No days to show.";
  const total = days.reduce((sum, d) => sum + d.usd, 0);
  const top = days.reduce((best, d) => (d.usd > best.usd ? d : best), days[0] as DaySpend);
  const over = cap === undefined ? 0 : days.filter((d) => d.usd >= cap && cap > 0).length;
  const parts = [`${usd(total)} over the last ${days.length} days`];
  if (top.usd > 0) parts.push(`most on ${dayLabel(top.day)} (${usd(top.usd)})`);
  if (cap !== undefined)
    parts.push(`daily cap ${usd(cap)}${over ? `, reached on ${over} day${over === 1 ? "" : "s"}` : ""}`);
  return `${parts.join("; ")}.`;
}

/** Spend per day as bars, with the daily cap as a dashed line; a day at or over the cap is drawn as such. */
export function SpendChart(props: { days: DaySpend[]; cap: number | undefined }) {
  const top = () =>
    scaleTop(
      props.days.map((d) => d.usd),
      props.cap,
    );
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const y = (value: number) => TOP + plotHeight - (value / top()) * plotHeight;
  const slot = () => plotWidth / Math.max(props.days.length, 1);
  const capValue = () => props.cap ?? 0;
  const ticks = () => [0, 0.5, 1].map((f) => f * top());
  return (
    <figure class="spend-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Spend per day: ${describeSpend(props.days, props.cap)}`}
      >
        <For each={ticks()}>
          {(tick) => (
            <g class="tick">
              <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
              <text x={LEFT - 6} y={y(tick) + 4} text-anchor="end">
                {usdMark(tick)}
              </text>
            </g>
          )}
        </For>
        <For each={props.days}>
          {(day, i) => (
            <g class="day">
              <rect
                class="bar"
                data-day={day.day}
                data-over={
                  props.cap !== undefined && props.cap > 0 && day.usd >= props.cap ? "true" : undefined
                }
                x={LEFT + i() * slot() + slot() * 0.15}
                width={slot() * 0.7}
                y={y(day.usd)}
                height={Math.max(TOP + plotHeight - y(day.usd), day.usd > 0 ? 1 : 0)}
              >
                <title>{`${dayLabel(day.day)}: ${usd(day.usd)}, ${day.calls} calls${day.refused ? `, ${day.refused} refused` : ""}`}</title>
              </rect>
              <Show when={i() % 7 === (props.days.length - 1) % 7}>
                <text class="day-label" x={LEFT + (i() + 0.5) * slot()} y={HEIGHT - 8} text-anchor="middle">
                  {dayLabel(day.day)}
                </text>
              </Show>
            </g>
          )}
        </For>
        <Show when={props.cap !== undefined}>
          <g class="cap-line" data-cap={capValue()}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(capValue())} y2={y(capValue())} />
            <text x={WIDTH - RIGHT} y={y(capValue()) - 5} text-anchor="end">
              {`daily cap ${usd(capValue())}`}
            </text>
          </g>
        </Show>
      </svg>
      <figcaption>{describeSpend(props.days, props.cap)}</figcaption>
    </figure>
  );
}
