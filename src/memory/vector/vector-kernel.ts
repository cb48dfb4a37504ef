/**
 * The inner loop of the vector index: int8 codes · an int16 query, scaled per row, for a list of row slots. A
 * plain JavaScript loop manages about one multiply-add per 3 ns here (100k × 128 dims ≈ 40 ms), so the loop is a
 * WebAssembly SIMD function (16 codes a step, four rows at once; 100k × 128 dims ≈ 1.5 ms) assembled from the
 * bytes below: no compiler, no download, no native build. Where WebAssembly SIMD is missing (a `--jitless`
 * runtime) the same arithmetic runs in JavaScript.
 *
 * `scoreRows(query, codes, slots, count, rowBytes, scales, out)`, all pointers into one memory:
 * `out[i] = scales[s] · Σ_d codes[s · rowBytes + d] · query[d]` for `s = slots[i]`, `i < count`.
 * `rowBytes` is a positive multiple of 16, and addresses are byte offsets.
 */
export type ScoreRows = (
  query: number,
  codes: number,
  slots: number,
  count: number,
  rowBytes: number,
  scales: number,
  out: number,
) => void;

/** The part of the WebAssembly API used here (its global types come with the DOM lib, which this project omits). */
export interface KernelMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WebAssemblyApi {
  Memory: new (descriptor: { initial: number }) => KernelMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}
const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

export interface VectorKernel {
  readonly memory: KernelMemory;
  readonly scoreRows: ScoreRows;
  /** "simd" when the WebAssembly loop runs, "scalar" for the JavaScript fallback. */
  readonly kind: "simd" | "scalar";
}

// Local indexes: the seven parameters, six i32 locals (row index, step, four row addresses), seven v128 locals
// (four accumulators, the codes, the query's low and high halves).
const [Q, CODES, SLOTS, COUNT, ROW_BYTES, SCALES, OUT] = [0, 1, 2, 3, 4, 5, 6];
const [I, D] = [7, 8];
const ROWS = [9, 10, 11, 12];
const ACCS = [13, 14, 15, 16];
const [V, Q_LOW, Q_HIGH] = [17, 18, 19];
const LOCALS = [2, 6, 0x7f, 7, 0x7b]; // two groups: 6 × i32, 7 × v128
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
const i32Const = (value: number) => [0x41, value]; // only 0..63, which one LEB128 byte encodes
const simd = (opcode: number, ...immediates: number[]) => [0xfd, ...encodeLeb128(opcode), ...immediates];
const v128Load = (offset: number) => simd(0x00, 0, offset);
const [I32_ADD, I32_MUL, I32_SHL, I32_LT_U, I32_GT_U, I32_GE_U] = [0x6a, 0x6c, 0x74, 0x49, 0x4b, 0x4f];
const i32Load = (offset: number) => [0x28, 2, offset];
const f32Store = (offset: number) => [0x38, 2, offset];
const [F32_LOAD, F32_MUL, F32_CONVERT_I32_S] = [[0x2a, 2, 0], 0x94, 0xb2];
const [BLOCK, LOOP, END, BR, BR_IF] = [[0x02, 0x40], [0x03, 0x40], 0x0b, 0x0c, 0x0d];
const [EXTEND_LOW_I8, EXTEND_HIGH_I8, DOT_I16, ADD_I32X4] = [simd(0x87), simd(0x88), simd(0xba), simd(0xae)];
/** `base + index · 2^shift` */
const address = (base: number, index: number, shift: number) => [
  ...get(base),
  ...get(index),
  ...i32Const(shift),
  I32_SHL,
  I32_ADD,
];

/**
 * Scores rows `i … i+n−1` (n ≤ 4) together: one pass over the query serves n rows, and n independent
 * accumulators keep the SIMD units busy where a single one would wait on its own previous sum.
 */
function scoreGroup(n: number): number[] {
  const rows = ROWS.slice(0, n);
  const accs = ACCS.slice(0, n);
  const slotAt = (k: number) => [...address(SLOTS, I, 2), ...i32Load(4 * k)];
  return [
    ...rows.flatMap((row, k) => [
      ...get(CODES),
      ...slotAt(k),
      ...get(ROW_BYTES),
      I32_MUL,
      I32_ADD,
      ...set(row),
    ]),
    ...accs.flatMap((acc) => [...simd(0x0c, ...new Array<number>(16).fill(0)), ...set(acc)]),
    ...i32Const(0),
    ...set(D),
    ...LOOP, // one step: 16 codes of each row
    ...address(Q, D, 1),
    ...v128Load(0),
    ...set(Q_LOW),
    ...address(Q, D, 1),
    ...v128Load(16),
    ...set(Q_HIGH),
    ...rows.flatMap((row, k) => [
      ...get(row),
      ...get(D),
      I32_ADD,
      ...v128Load(0),
      ...set(V),
      ...get(accs[k] as number),
      ...get(V),
      ...EXTEND_LOW_I8,
      ...get(Q_LOW),
      ...DOT_I16,
      ...ADD_I32X4,
      ...get(V),
      ...EXTEND_HIGH_I8,
      ...get(Q_HIGH),
      ...DOT_I16,
      ...ADD_I32X4,
      ...set(accs[k] as number),
    ]),
    ...get(D),
    ...i32Const(16),
    I32_ADD,
    ...tee(D),
    ...get(ROW_BYTES),
    I32_LT_U,
    ...[BR_IF, 0],
    END,
    // out[i+k] = (sum of the four lanes) · scales[slot]
    ...accs.flatMap((acc, k) => [
      ...address(OUT, I, 2),
      ...[0, 1, 2, 3].flatMap((lane) => [...get(acc), ...simd(0x1b, lane), ...(lane > 0 ? [I32_ADD] : [])]),
      F32_CONVERT_I32_S,
      ...get(SCALES),
      ...slotAt(k),
      ...i32Const(2),
      I32_SHL,
      I32_ADD,
      ...F32_LOAD,
      F32_MUL,
      ...f32Store(4 * k),
    ]),
  ];
}

const BODY = [
  ...BLOCK, // exit
  ...BLOCK, // end of the groups of four
  ...LOOP,
  ...get(I),
  ...i32Const(4),
  I32_ADD,
  ...get(COUNT),
  I32_GT_U,
  ...[BR_IF, 1], // fewer than four rows left
  ...scoreGroup(4),
  ...get(I),
  ...i32Const(4),
  I32_ADD,
  ...set(I),
  ...[BR, 0],
  END,
  END,
  ...LOOP, // the last rows one at a time
  ...get(I),
  ...get(COUNT),
  I32_GE_U,
  ...[BR_IF, 1],
  ...scoreGroup(1),
  ...get(I),
  ...i32Const(1),
  I32_ADD,
  ...set(I),
  ...[BR, 0],
  END,
  END,
  END, // of the function
];

/** The module: imports `env.memory`, exports `scoreRows`. */
function assembleModule(): Uint8Array {
  const code = [...LOCALS, ...BODY];
  const name = (text: string) => [text.length, ...Buffer.from(text)];
  const section = (id: number, content: number[]) => [id, ...encodeLeb128(content.length), ...content];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 7, ...new Array<number>(7).fill(0x7f), 0]),
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("scoreRows"), 0x00, 0]),
    ...section(10, [1, ...encodeLeb128(code.length), ...code]),
  ]);
}

function encodeLeb128(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
}

/** The kernel over a fresh memory; `prefer: "scalar"` forces the fallback (tests compare the two). */
export function createVectorKernel(options: { prefer?: "simd" | "scalar" } = {}): VectorKernel {
  const module = options.prefer === "scalar" ? undefined : compileModuleOnce();
  if (wasm && module) {
    const memory = new wasm.Memory({ initial: 1 });
    const instance = new wasm.Instance(module, { env: { memory } });
    return { memory, scoreRows: instance.exports.scoreRows as ScoreRows, kind: "simd" };
  }
  const memory = createArrayMemory();
  return { memory, scoreRows: createScalarScoreRows(memory), kind: "scalar" };
}

let compiled: object | null | undefined;

/** The module, compiled once per process (a centroid table makes a kernel per group); null without SIMD. */
function compileModuleOnce(): object | null {
  if (compiled === undefined) {
    const bytes = assembleModule();
    compiled = wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
  }
  return compiled;
}

/** A growable buffer with the Memory interface, for runtimes without WebAssembly. */
function createArrayMemory(): KernelMemory {
  let buffer = new ArrayBuffer(65536);
  return {
    get buffer() {
      return buffer;
    },
    grow(pages) {
      const before = buffer.byteLength / 65536;
      const bigger = new ArrayBuffer(buffer.byteLength + pages * 65536);
      new Uint8Array(bigger).set(new Uint8Array(buffer));
      buffer = bigger;
      return before;
    },
  };
}

function createScalarScoreRows(memory: KernelMemory): ScoreRows {
  return (query, codes, slots, count, rowBytes, scales, out) => {
    // Views are made per call: growing the memory replaces its buffer.
    const buffer = memory.buffer;
    const i8 = new Int8Array(buffer);
    const i16 = new Int16Array(buffer);
    const i32 = new Int32Array(buffer);
    const f32 = new Float32Array(buffer);
    const q = query >> 1;
    for (let i = 0; i < count; i++) {
      const slot = i32[(slots >> 2) + i] as number;
      const row = codes + slot * rowBytes;
      let sum = 0;
      for (let d = 0; d < rowBytes; d++) sum += (i8[row + d] as number) * (i16[q + d] as number);
      f32[(out >> 2) + i] = sum * (f32[(scales >> 2) + slot] as number);
    }
  };
}
