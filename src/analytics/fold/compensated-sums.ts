/**
 * Sums with Neumaier's compensation, one per slot: each addition keeps the
 * low-order bits that the running sum rounds away, so that a term added and
 * later subtracted again cancels exactly (revenue-moments.ts).
 */
export class CompensatedSums {
  private readonly sum: Float64Array;
  private readonly compensation: Float64Array;

  constructor(slots: number) {
    this.sum = new Float64Array(slots);
    this.compensation = new Float64Array(slots);
  }

  add(at: number, value: number): void {
    const sum = this.sum[at]!;
    const next = sum + value;
    this.compensation[at]! += Math.abs(sum) >= Math.abs(value) ? sum - next + value : value - next + sum;
    this.sum[at] = next;
  }

  value(at: number): number {
    return this.sum[at]! + this.compensation[at]!;
  }
}
