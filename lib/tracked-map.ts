/** A Map that says when it changed: a set, a delete that removed something, a clear of a non-empty map. */
export class TrackedMap<K, V> extends Map<K, V> {
  private bump?: () => void;
  constructor(bump: () => void) {
    super();
    this.bump = bump;
  }
  override set(k: K, v: V): this {
    super.set(k, v);
    this.bump?.();
    return this;
  }
  override delete(k: K): boolean {
    const had = super.delete(k);
    if (had) this.bump?.();
    return had;
  }
  override clear(): void {
    if (this.size) this.bump?.();
    super.clear();
  }
}
