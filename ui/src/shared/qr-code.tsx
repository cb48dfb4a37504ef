import { createMemo, For } from "solid-js";
import { encode } from "uqr";

/** A row's run of dark modules: where it starts, in which row, how many. */
export interface DarkRun {
  x: number;
  y: number;
  width: number;
}

/** The dark modules of a QR matrix as runs along each row: far fewer SVG elements than one per module. */
export function darkRuns(matrix: readonly (readonly boolean[])[]): DarkRun[] {
  const runs: DarkRun[] = [];
  matrix.forEach((row, y) => {
    let start = -1;
    for (let x = 0; x <= row.length; x++) {
      const dark = row[x] === true;
      if (dark && start < 0) start = x;
      if (!dark && start >= 0) {
        runs.push({ x: start, y, width: x - start });
        start = -1;
      }
    }
  });
  return runs;
}

/** `text` as a QR code a phone's camera reads, drawn as SVG with its quiet zone (four light modules). */
export function QrCode(props: { text: string; label: string; pixels?: number }) {
  // Encoded once per text, not once per attribute that reads it.
  const code = createMemo(() => encode(props.text, { ecc: "M", border: 4 }));
  return (
    <svg
      class="qr-code"
      role="img"
      aria-label={props.label}
      viewBox={`0 0 ${code().size} ${code().size}`}
      width={props.pixels ?? 160}
      height={props.pixels ?? 160}
      shape-rendering="crispEdges"
      data-modules={code().size}
    >
      <rect width={code().size} height={code().size} fill="#fff" />
      <For each={darkRuns(code().data)}>
        {(run) => <rect x={run.x} y={run.y} width={run.width} height={1} fill="#000" />}
      </For>
    </svg>
  );
}
