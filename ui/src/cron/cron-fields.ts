// Every field of a cron expression checked on its own, so a schedule with two mistakes names both (croner
// stops at the first). Only what is surely wrong is reported here (a number out of range, a step of 0, a word
// that is no value); croner still judges the whole expression afterwards.

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** Croner's extras for this field: L (last day, last weekday), # (nth weekday). */
  extras?: RegExp;
}

const SECOND: FieldRule = { name: "second", min: 0, max: 59 };
const MINUTE: FieldRule = { name: "minute", min: 0, max: 59 };
const HOUR: FieldRule = { name: "hour", min: 0, max: 23 };
const DAY: FieldRule = { name: "day of month", min: 1, max: 31, extras: /^L$/i };
const MONTH: FieldRule = {
  name: "month",
  min: 1,
  max: 12,
  names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
};
const WEEKDAY: FieldRule = {
  name: "day of week",
  min: 0,
  max: 7,
  names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
  extras: /^([0-7]|sun|mon|tue|wed|thu|fri|sat)(L|#[1-5])$/i,
};

/** Each invalid field as "Invalid value for <field>: <value>", in the order of the expression. */
export function checkCronFields(expression: string): string[] {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) return [];
  const rules =
    parts.length === 6 ? [SECOND, MINUTE, HOUR, DAY, MONTH, WEEKDAY] : [MINUTE, HOUR, DAY, MONTH, WEEKDAY];
  const problems: string[] = [];
  parts.forEach((part, n) => {
    const rule = rules[n];
    if (rule && !fieldIsValid(part, rule)) problems.push(`Invalid value for ${rule.name}: ${part}`);
  });
  return problems;
}

function fieldIsValid(field: string, rule: FieldRule): boolean {
  return field.split(",").every((item) => itemIsValid(item, rule));
}

function itemIsValid(item: string, rule: FieldRule): boolean {
  if (rule.extras?.test(item)) return true;
  const [range = "", step, ...rest] = item.split("/");
  if (rest.length > 0) return false;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return false;
  if (range === "*" || (range === "?" && (rule === DAY || rule === WEEKDAY))) return true;
  const ends = range.split("-");
  if (ends.length > 2) return false;
  return ends.every((end) => readValue(end, rule) !== undefined);
}

function readValue(text: string, rule: FieldRule): number | undefined {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    return value >= rule.min && value <= rule.max ? value : undefined;
  }
  const at = rule.names?.indexOf(text.toLowerCase()) ?? -1;
  return at >= 0 ? at + (rule === MONTH ? 1 : 0) : undefined;
}
