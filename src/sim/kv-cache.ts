/**
 * The KV cache as vLLM's block manager keeps it: fixed-size blocks, a free queue in least-recently
 * freed order, and (with prefix caching) full prompt blocks remembered by a hash chained over the
 * block's content and its predecessor's hash. A freed block keeps its hash until it is reused for
 * something else, so a later request with the same prefix finds it.
 */
interface Block {
  refCount: number;
  hash: string | null;
}

export class KvCache {
  private readonly blocks: Block[];
  /** Free block ids, oldest first; a Map keeps insertion order and deletes in O(1). */
  private readonly freeQueue = new Map<number, true>();
  private readonly byHash = new Map<string, number>();

  constructor(
    readonly totalBlocks: number,
    readonly blockSize: number,
    readonly prefixCaching: boolean,
  ) {
    this.blocks = Array.from({ length: totalBlocks }, () => ({ refCount: 0, hash: null }));
    for (let id = 0; id < totalBlocks; id++) this.freeQueue.set(id, true);
  }

  get freeBlocks(): number {
    return this.freeQueue.size;
  }

  /** Share of blocks in use (vLLM's gpu_cache_usage_perc, 0..1); cached but free blocks count as free. */
  get usage(): number {
    return 1 - this.freeQueue.size / this.totalBlocks;
  }

  blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize);
  }

  /**
   * Leading blocks of a prompt already in the cache, as block ids. At most `maxTokens` tokens'
   * worth (vLLM always recomputes at least the last prompt token, to sample from it).
   */
  lookup(hashes: readonly string[], maxTokens: number): number[] {
    if (!this.prefixCaching) return [];
    const limit = Math.min(hashes.length, Math.floor(maxTokens / this.blockSize));
    const hits: number[] = [];
    for (let i = 0; i < limit; i++) {
      const id = this.byHash.get(hashes[i] as string);
      if (id === undefined) break;
      hits.push(id);
    }
    return hits;
  }

  /**
   * Gives a sequence holding `held` blocks enough blocks for `tokens` tokens, first taking the
   * cached `hits` (only when it holds none yet). False, and nothing changed, when the free blocks
   * do not suffice.
   */
  allocate(held: number[], tokens: number, hits: readonly number[] = []): boolean {
    const reusedFree = hits.filter((id) => (this.blocks[id] as Block).refCount === 0).length;
    const needed = this.blocksFor(tokens) - held.length - hits.length;
    if (needed > this.freeQueue.size - reusedFree) return false;
    for (const id of hits) {
      const block = this.blocks[id] as Block;
      if (block.refCount === 0) this.freeQueue.delete(id);
      block.refCount++;
      held.push(id);
    }
    for (let i = 0; i < needed; i++) {
      const id = this.freeQueue.keys().next().value as number;
      this.freeQueue.delete(id);
      const block = this.blocks[id] as Block;
      if (block.hash !== null) {
        if (this.byHash.get(block.hash) === id) this.byHash.delete(block.hash);
        block.hash = null;
      }
      block.refCount = 1;
      held.push(id);
    }
    return true;
  }

  /** Remembers the hashes of a sequence's blocks that are now full of computed prompt tokens. */
  registerFull(held: readonly number[], hashes: readonly string[], computedTokens: number): void {
    if (!this.prefixCaching) return;
    const full = Math.min(hashes.length, Math.floor(computedTokens / this.blockSize), held.length);
    for (let i = 0; i < full; i++) {
      const block = this.blocks[held[i] as number] as Block;
      const hash = hashes[i] as string;
      if (block.hash !== null || this.byHash.has(hash)) continue;
      block.hash = hash;
      this.byHash.set(hash, held[i] as number);
    }
  }

  /**
   * Forgets every cached prefix (vLLM's reset_prefix_cache): no later prompt finds a block of an
   * earlier one. Blocks in use stay with their sequences, unhashed.
   */
  resetPrefixCache(): void {
    for (const block of this.blocks) block.hash = null;
    this.byHash.clear();
  }

  /** Releases a sequence's blocks, last block first so that a prefix's head stays cached longest. */
  free(held: number[]): void {
    for (let i = held.length - 1; i >= 0; i--) {
      const id = held[i] as number;
      const block = this.blocks[id] as Block;
      if (--block.refCount === 0) this.freeQueue.set(id, true);
    }
    held.length = 0;
  }
}

/**
 * The chained hashes of a prompt's full blocks. Tokens are the 4-character pieces the documented
 * estimate counts, so block i covers characters [i x blockSize x 4, (i + 1) x blockSize x 4).
 * A 53-bit string hash, not a cryptographic one: it runs for every block of every arriving prompt
 * on the thread that times the tokens, and a collision only costs a wrong cache hit in a simulation.
 */
export function promptBlockHashes(text: string, promptTokens: number, blockSize: number, charsPerToken: number): string[] {
  const hashes: string[] = [];
  const fullBlocks = Math.floor(promptTokens / blockSize);
  const span = blockSize * charsPerToken;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < fullBlocks; i++) {
    // Carrying h1 and h2 from block to block chains each hash to everything before it.
    const end = Math.min(text.length, (i + 1) * span);
    for (let c = i * span; c < end; c++) {
      const code = text.charCodeAt(c);
      h1 = Math.imul(h1 ^ code, 2654435761);
      h2 = Math.imul(h2 ^ code, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    hashes.push(`${i}:${(h2 >>> 0).toString(36)}${(h1 >>> 0).toString(36)}`);
  }
  return hashes;
}
