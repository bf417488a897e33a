/** A counted budget of open connections, shared by whoever holds it; a taken slot must be released exactly once. */
export class ConnectionSlots {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes a slot if one is free; false when the budget is spent. */
  tryTake(): boolean {
    if (this.used >= this.limit) return false;
    this.used += 1;
    return true;
  }

  release(): void {
    this.used = Math.max(0, this.used - 1);
  }

  get inUse(): number {
    return this.used;
  }
}
