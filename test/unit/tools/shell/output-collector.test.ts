import { describe, expect, it } from "vitest";
import { capText, OutputCollector } from "../../../../tools/shell/output-collector.js";

describe("OutputCollector", () => {
  it("keeps everything when the output fits", () => {
    const collector = new OutputCollector(100);
    collector.push(Buffer.from("hello "));
    collector.push(Buffer.from("world"));
    expect(collector.toText()).toBe("hello world");
    expect(collector.truncated).toBe(false);
  });

  it("keeps the head and the tail with a marker naming the omitted byte count", () => {
    const collector = new OutputCollector(10);
    for (const chunk of ["0123456789", "abcdefghij", "KLMNOPQRST"]) collector.push(Buffer.from(chunk));
    expect(collector.truncated).toBe(true);
    expect(collector.total).toBe(30);
    const text = collector.toText();
    expect(text.startsWith("01234")).toBe(true);
    expect(text.endsWith("PQRST")).toBe(true);
    expect(text).toContain("[... output truncated: 20 bytes omitted ...]");
  });

  it("bounds memory for a long stream of small chunks", () => {
    const collector = new OutputCollector(1000);
    for (let i = 0; i < 100_000; i += 1) collector.push(Buffer.from("line of output\n"));
    expect(collector.toText().length).toBeLessThan(1200);
    expect(collector.total).toBe(1_500_000);
  });
});

describe("capText", () => {
  it("leaves short text alone", () => {
    expect(capText("short", 10)).toEqual({ text: "short", truncated: false });
  });

  it("cuts long text to head and tail around a marker with the omitted character count", () => {
    const { text, truncated } = capText("a".repeat(50) + "b".repeat(50), 20);
    expect(truncated).toBe(true);
    expect(text).toMatch(/^a{10}\n\[\.\.\. output truncated: 80 characters omitted \.\.\.\]\nb{10}$/);
  });
});
