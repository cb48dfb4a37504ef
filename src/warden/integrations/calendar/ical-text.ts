// iCalendar text (RFC 5545 §3.1) as a tree of components whose properties keep what they were: the calendar
// tools change DTSTART and DTEND of an event another client wrote and must give every other line back as it was
// (alarms, attendees, X- properties). Lines are unfolded on reading and folded at 75 octets on writing.

export interface IcalProperty {
  name: string;
  params: Record<string, string>;
  value: string;
  /** The unfolded line as read, written back unchanged unless the property was replaced. */
  raw?: string;
}

export interface IcalComponent {
  name: string;
  properties: IcalProperty[];
  components: IcalComponent[];
}

/** Reads iCalendar text; throws when BEGIN and END do not pair (a server's answer that is not a calendar). */
export function parseIcal(text: string): IcalComponent {
  const lines = text
    .replace(/\r?\n[ \t]/g, "")
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "");
  const root: IcalComponent = { name: "", properties: [], components: [] };
  const stack = [root];
  for (const line of lines) {
    const property = parseLine(line);
    const top = stack.at(-1) as IcalComponent;
    if (property.name === "BEGIN") {
      const child = { name: property.value.toUpperCase(), properties: [], components: [] };
      top.components.push(child);
      stack.push(child);
    } else if (property.name === "END") {
      if (stack.length < 2 || top.name !== property.value.toUpperCase())
        throw new Error(`END:${property.value} does not close ${top.name || "anything"}`);
      stack.pop();
    } else top.properties.push(property);
  }
  const [calendar] = root.components;
  if (stack.length !== 1 || !calendar || calendar.name !== "VCALENDAR") throw new Error("not a VCALENDAR");
  return calendar;
}

function parseLine(line: string): IcalProperty {
  // The value starts at the first colon outside a quoted parameter value.
  let quoted = false;
  let colon = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ":" && !quoted) {
      colon = i;
      break;
    }
  }
  const head = colon < 0 ? line : line.slice(0, colon);
  const value = colon < 0 ? "" : line.slice(colon + 1);
  const [name = "", ...rawParams] = head.split(";");
  const params: Record<string, string> = {};
  for (const p of rawParams) {
    const eq = p.indexOf("=");
    if (eq > 0) params[p.slice(0, eq).toUpperCase()] = p.slice(eq + 1).replace(/^"|"$/g, "");
  }
  return { name: name.toUpperCase(), params, value, raw: line };
}

/** The first property of that name, or undefined. */
export function prop(component: IcalComponent, name: string): IcalProperty | undefined {
  return component.properties.find((p) => p.name === name);
}

/** A TEXT value as the person wrote it (§3.3.11: \n, \, \; and \\ are escapes). */
export function unescapeText(value: string): string {
  return value.replace(/\\([nN\\;,])/g, (_m, c: string) => (c === "n" || c === "N" ? "\n" : c));
}

export function escapeText(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}

/** A property written fresh (its raw line dropped). */
export function property(name: string, value: string, params: Record<string, string> = {}): IcalProperty {
  return { name, params, value };
}

/** The component as iCalendar text, CRLF line ends, lines folded at 75 octets. */
export function writeIcal(component: IcalComponent): string {
  const lines: string[] = [];
  const walk = (c: IcalComponent) => {
    lines.push(`BEGIN:${c.name}`);
    for (const p of c.properties) lines.push(p.raw ?? lineOf(p));
    for (const child of c.components) walk(child);
    lines.push(`END:${c.name}`);
  };
  walk(component);
  return `${lines.map(fold).join("\r\n")}\r\n`;
}

function lineOf(p: IcalProperty): string {
  const params = Object.entries(p.params).map(([k, v]) => `;${k}=${/[;:,]/.test(v) ? `"${v}"` : v}`);
  return `${p.name}${params.join("")}:${p.value}`;
}

function fold(line: string): string {
  const bytes = Buffer.from(line, "utf8");
  if (bytes.length <= 75) return line;
  const pieces: string[] = [];
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // Never split a UTF-8 sequence: back up to the start of a character.
    while (end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    pieces.push(bytes.subarray(start, end).toString("utf8"));
    start = end;
    limit = 74; // a continuation line starts with a space
  }
  return pieces.join("\r\n ");
}
