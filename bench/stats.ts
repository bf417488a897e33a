/** Median and tail percentiles of a sample, in the sample's unit. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

/** Summarises measurements (nearest-rank percentiles). */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
  return {
    n: sorted.length,
    p50: round(rank(50)),
    p95: round(rank(95)),
    p99: round(rank(99)),
    min: round(sorted[0] ?? 0),
    max: round(sorted.at(-1) ?? 0),
  };
}

/** Times `run` `repetitions` times after `warmup` discarded runs; milliseconds. */
export async function measure(repetitions: number, run: () => Promise<unknown>, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await run();
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** A figure rounded to hundredths, as the reports show them. */
export function round(value: number): number {
  return Math.round(value * 100) / 100;
}
