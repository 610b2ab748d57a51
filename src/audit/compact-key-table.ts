/**
 * A string-keyed table of small whole numbers that stores 64-bit hashes of
 * its keys in typed arrays instead of the strings themselves: ~24 bytes per
 * key instead of ~100, so checking a million-event export (its event ids,
 * its streams' versions) fits in a few tens of MB. Two different keys share
 * a hash with probability about n²/2⁶⁵ (3·10⁻⁸ for a million keys); such a
 * pair would be taken as one key.
 *
 * @example
 * const seen = new CompactKeyTable();
 * seen.swap('01J…', 1) // 0, the value it had
 * seen.swap('01J…', 1) // 1
 */
export class CompactKeyTable {
  #hi = new Uint32Array(1024);
  #lo = new Uint32Array(1024);
  #values = new Uint32Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Sets a key and returns the value it had, 0 when it had none (so values start at 1): a get and a set in one, the key hashed once. */
  swap(key: string, value: number): number {
    if ((this.#size + 1) * 2 > this.#hi.length) this.#grow();
    const [hi, lo] = hash64(key);
    const slot = this.#find(hi, lo);
    let before = 0;
    if (this.#hi[slot] === 0 && this.#lo[slot] === 0) {
      this.#hi[slot] = hi;
      this.#lo[slot] = lo;
      this.#size += 1;
    } else {
      before = this.#values[slot] as number;
    }
    this.#values[slot] = value;
    return before;
  }

  /** The slot holding (hi, lo), or the empty slot where it would go (linear probing). */
  #find(hi: number, lo: number): number {
    const mask = this.#hi.length - 1;
    for (let slot = lo & mask; ; slot = (slot + 1) & mask) {
      const h = this.#hi[slot] as number;
      const l = this.#lo[slot] as number;
      if ((h === hi && l === lo) || (h === 0 && l === 0)) return slot;
    }
  }

  #grow(): void {
    const [his, los, values] = [this.#hi, this.#lo, this.#values];
    this.#hi = new Uint32Array(his.length * 2);
    this.#lo = new Uint32Array(his.length * 2);
    this.#values = new Uint32Array(his.length * 2);
    for (let i = 0; i < his.length; i++) {
      const hi = his[i] as number;
      const lo = los[i] as number;
      if (hi === 0 && lo === 0) continue;
      const slot = this.#find(hi, lo);
      this.#hi[slot] = hi;
      this.#lo[slot] = lo;
      this.#values[slot] = values[i] as number;
    }
  }
}

/** Two independent 32-bit string hashes (murmur3-style mixing, different seeds); (0, 0) is reserved for "empty". */
function hash64(key: string): [number, number] {
  let a = 0x9747b28c;
  let b = 0x1b873593 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0xcc9e2d51);
    a = (a << 15) | (a >>> 17);
    b = Math.imul(b ^ c, 0x85ebca6b);
    b = (b << 13) | (b >>> 19);
    b = Math.imul(b, 5) + 0xe6546b64;
  }
  a = fmix(a ^ key.length);
  b = fmix(b);
  return a === 0 && b === 0 ? [0, 1] : [a >>> 0, b >>> 0];
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
