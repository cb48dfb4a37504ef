import { createVectorKernel, type VectorKernel } from "./vector-kernel.js";
import { quantiseQuery, quantiseRow } from "./vector-quantise.js";
import { selectBest, selectNth } from "./vector-select.js";

/** The best `count` rows of a scan, best first: rowids and their approximate scores. */
export interface Shortlist {
  rowids: number[];
  scores: number[];
}

const INITIAL_CAPACITY = 1024;

/** Byte offsets of the kernel memory's regions for the current capacity. */
interface Layout {
  scales: number;
  codes: number;
  slots: number;
  out: number;
  end: number;
}

/**
 * An in-memory copy of the vectors as int8 codes, one scale per row, filed into lists, scanned by the SIMD
 * kernel. It is a cache of the `chunk_vectors` table, never the source of truth: the index rebuilds or updates it
 * from SQLite. A row's code is `round(127 · x / max|x|)`, so no training or stored statistics are needed and an
 * insert never needs the other rows; the ranking error this adds is removed by rescoring the shortlist with the
 * stored floats.
 *
 * Kernel memory, from address 0: the int16 query, per-slot scales, codes (`rowBytes` per slot), then scratch for
 * the slots to score and their scores. Slots of removed rows are reused.
 */
export class VectorCodes {
  readonly rowBytes: number;
  private readonly kernel: VectorKernel;
  private capacity = 0;
  private used = 0;
  private readonly free: number[] = [];
  private rowidOf = new Float64Array(0);
  private listOf = new Int32Array(0);
  private positionOf = new Int32Array(0);
  private readonly slotOf = new Map<number, number>();
  private members: Int32Array[] = [];
  private sizes: number[] = [];
  /** Views of the kernel memory, remade only when growing replaced its buffer (making them per call showed up). */
  private cachedLayout: Layout | undefined;
  private heap:
    | { buffer: ArrayBuffer; i8: Int8Array; i16: Int16Array; i32: Int32Array; f32: Float32Array }
    | undefined;

  constructor(
    readonly dimensions: number,
    options: { kernel?: "simd" | "scalar" } = {},
  ) {
    this.rowBytes = Math.ceil(dimensions / 16) * 16;
    this.kernel = createVectorKernel(options.kernel ? { prefer: options.kernel } : {});
    this.grow(INITIAL_CAPACITY);
    this.setListCount(1);
  }

  get size(): number {
    return this.slotOf.size;
  }

  get kernelKind(): "simd" | "scalar" {
    return this.kernel.kind;
  }

  get listCount(): number {
    return this.members.length;
  }

  listSize(list: number): number {
    return this.sizes[list] ?? 0;
  }

  has(rowid: number): boolean {
    return this.slotOf.has(rowid);
  }

  /** Drops every row and files future rows into `lists` lists. */
  reset(lists: number): void {
    this.slotOf.clear();
    this.free.length = 0;
    this.used = 0;
    this.members = [];
    this.sizes = [];
    this.setListCount(lists);
  }

  /** Stores a row's code in `list`, replacing any earlier version of the row. */
  put(rowid: number, list: number, vector: Float32Array): void {
    if (!(list >= 0 && list < this.members.length))
      throw new RangeError(`list ${list} is not one of ${this.listCount}`);
    this.remove(rowid);
    const slot = this.free.pop() ?? this.claimSlot();
    this.slotOf.set(rowid, slot);
    this.rowidOf[slot] = rowid;
    this.writeCode(slot, vector);
    this.listOf[slot] = list;
    let members = this.members[list] as Int32Array;
    const size = this.sizes[list] as number;
    if (size === members.length) {
      const bigger = new Int32Array(Math.max(16, size * 2));
      bigger.set(members);
      members = bigger;
      this.members[list] = members;
    }
    members[size] = slot;
    this.positionOf[slot] = size;
    this.sizes[list] = size + 1;
  }

  remove(rowid: number): void {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return;
    this.slotOf.delete(rowid);
    // Swap-remove from the list: the list's last member takes the removed one's place.
    const list = this.listOf[slot] as number;
    const members = this.members[list] as Int32Array;
    const last = (this.sizes[list] as number) - 1;
    const moved = members[last] as number;
    const position = this.positionOf[slot] as number;
    members[position] = moved;
    this.positionOf[moved] = position;
    this.sizes[list] = last;
    this.free.push(slot);
  }

  /**
   * Renumbers the slots so each list's rows sit next to each other, list after list. Scoring a list then reads
   * memory in order instead of jumping to wherever each row was first stored, which halved the search time at
   * 100k rows here, once the codes no longer fit in the cache. Rows stored later go wherever a slot is free.
   */
  compact(): void {
    const { codes, scales } = this.layout();
    const buffer = this.kernel.memory.buffer;
    const rowBytes = this.rowBytes;
    const codeView = new Int8Array(buffer, codes, this.used * rowBytes);
    const scaleView = new Float32Array(buffer, scales, this.used);
    const oldCodes = codeView.slice();
    const oldScales = scaleView.slice();
    const oldRowids = this.rowidOf.slice(0, this.used);
    let next = 0;
    this.members.forEach((members, list) => {
      for (let position = 0; position < (this.sizes[list] as number); position++) {
        const old = members[position] as number;
        codeView.set(oldCodes.subarray(old * rowBytes, (old + 1) * rowBytes), next * rowBytes);
        scaleView[next] = oldScales[old] as number;
        const rowid = oldRowids[old] as number;
        this.rowidOf[next] = rowid;
        this.slotOf.set(rowid, next);
        this.listOf[next] = list;
        this.positionOf[next] = position;
        members[position] = next;
        next++;
      }
    });
    this.used = next;
    this.free.length = 0;
  }

  /**
   * The `count` rows of `lists` (every list when omitted) whose codes score highest against `query`. Scores are
   * the query's dot product with the decoded codes, up to one positive factor per query: they rank, they are not
   * cosines.
   */
  shortlist(query: Float32Array, count: number, lists?: readonly number[]): Shortlist {
    const { scores, slots } = this.scan(query, lists);
    const best = selectBest(scores, Math.min(count, scores.length));
    return {
      rowids: best.map((i) => this.rowidOf[slots[i] as number] as number),
      scores: best.map((i) => scores[i] as number),
    };
  }

  /**
   * The rowid of `lists` (every list when omitted) whose code scores highest against `query`, the first of equals,
   * as `shortlist(query, 1, lists)` gives it but without its arrays: filing a vector into its list asks this once
   * per vector, a million times when a million vectors are filed again.
   */
  best(query: Float32Array, lists?: readonly number[]): number | undefined {
    const { scores, slots } = this.scan(query, lists);
    let at = -1;
    let top = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < scores.length; i++) {
      const score = scores[i] as number;
      if (score > top) {
        top = score;
        at = i;
      }
    }
    return at < 0 ? undefined : (this.rowidOf[slots[at] as number] as number);
  }

  /**
   * At least the `count` highest-scoring rowids (ties may add a few), highest first. For tables of thousands of
   * rows such as the centroids: a selection on a copy finds the threshold in linear time, and only the rows above
   * it are sorted with a comparator, which for all of them would cost more than the scan.
   */
  rank(query: Float32Array, count = this.size): number[] {
    const { scores, slots } = this.scan(query);
    let threshold = Number.NEGATIVE_INFINITY;
    if (count < scores.length) threshold = selectNth(Float32Array.from(scores), scores.length - count);
    const order: number[] = [];
    for (let i = 0; i < scores.length; i++) if ((scores[i] as number) >= threshold) order.push(i);
    order.sort((a, b) => (scores[b] as number) - (scores[a] as number));
    return order.map((i) => this.rowidOf[slots[i] as number] as number);
  }

  /** Scores the rows of `lists` (all when omitted); the views are valid until the next call. */
  private scan(query: Float32Array, lists?: readonly number[]): { scores: Float32Array; slots: Int32Array } {
    const layout = this.layout();
    const { i32, f32 } = this.views();
    let total = 0;
    const each = (list: number) => {
      const size = this.sizes[list] ?? 0;
      i32.set((this.members[list] as Int32Array).subarray(0, size), (layout.slots >> 2) + total);
      total += size;
    };
    if (lists) lists.forEach(each);
    else for (let list = 0; list < this.members.length; list++) each(list);
    this.writeQuery(query);
    this.kernel.scoreRows(0, layout.codes, layout.slots, total, this.rowBytes, layout.scales, layout.out);
    return {
      scores: f32.subarray(layout.out >> 2, (layout.out >> 2) + total),
      slots: i32.subarray(layout.slots >> 2, (layout.slots >> 2) + total),
    };
  }

  private views() {
    const buffer = this.kernel.memory.buffer;
    if (this.heap?.buffer !== buffer) {
      this.heap = {
        buffer,
        i8: new Int8Array(buffer),
        i16: new Int16Array(buffer),
        i32: new Int32Array(buffer),
        f32: new Float32Array(buffer),
      };
    }
    return this.heap;
  }

  private setListCount(lists: number): void {
    while (this.members.length < lists) {
      this.members.push(new Int32Array(16));
      this.sizes.push(0);
    }
  }

  private claimSlot(): number {
    if (this.used === this.capacity) this.grow(this.capacity * 2);
    return this.used++;
  }

  private layout(capacity = this.capacity): Layout {
    if (capacity === this.capacity && this.cachedLayout) return this.cachedLayout;
    const scales = this.rowBytes * 2;
    const codes = scales + capacity * 4;
    const slots = codes + capacity * this.rowBytes;
    const out = slots + capacity * 4;
    const layout = { scales, codes, slots, out, end: out + capacity * 4 };
    if (capacity === this.capacity) this.cachedLayout = layout;
    return layout;
  }

  private grow(capacity: number): void {
    const before = this.layout();
    const after = this.layout(capacity);
    const memory = this.kernel.memory;
    const pages = Math.ceil(after.end / 65536) - memory.buffer.byteLength / 65536;
    if (pages > 0) memory.grow(pages);
    // Codes sit after the scales, which just got longer: move them up (copyWithin allows the overlap).
    new Uint8Array(memory.buffer).copyWithin(
      after.codes,
      before.codes,
      before.codes + this.used * this.rowBytes,
    );
    const copy = <T extends Float64Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const bigger = make(capacity);
      bigger.set(old);
      return bigger;
    };
    this.rowidOf = copy(this.rowidOf, (n) => new Float64Array(n));
    this.listOf = copy(this.listOf, (n) => new Int32Array(n));
    this.positionOf = copy(this.positionOf, (n) => new Int32Array(n));
    this.capacity = capacity;
    this.cachedLayout = undefined;
  }

  private writeCode(slot: number, vector: Float32Array): void {
    const { scales, codes } = this.layout();
    const { i8, f32 } = this.views();
    f32[(scales >> 2) + slot] = quantiseRow(vector, this.dimensions, i8, codes + slot * this.rowBytes);
  }

  private writeQuery(query: Float32Array): void {
    quantiseQuery(query, this.dimensions, this.views().i16);
  }
}
