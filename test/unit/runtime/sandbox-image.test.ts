import { describe, expect, it } from "vitest";
import { computeImageTag, parseBaseImage } from "../../../runtime/image/sandbox-image.js";
import { KeyedLock } from "../../../runtime/workers/keyed-lock.js";

describe("computeImageTag", () => {
  it("changes when the Dockerfile or the bundle changes, and only then", () => {
    const tag = computeImageTag("FROM x", "bundle");
    expect(tag).toMatch(/^workcell-sandbox:[0-9a-f]{16}$/);
    expect(computeImageTag("FROM x", "bundle")).toBe(tag);
    expect(computeImageTag("FROM y", "bundle")).not.toBe(tag);
    expect(computeImageTag("FROM x", "bundle2")).not.toBe(tag);
  });
});

describe("parseBaseImage", () => {
  it("reads the FROM line", () => {
    expect(parseBaseImage("# comment\nFROM debian:bookworm-slim\nRUN x")).toBe("debian:bookworm-slim");
  });
});

describe("KeyedLock", () => {
  it("runs operations on one key in order, and keys independently", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const slow = lock.run("a", async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push("a1");
    });
    const next = lock.run("a", async () => order.push("a2"));
    const other = lock.run("b", async () => order.push("b1"));
    await Promise.all([slow, next, other]);
    expect(order).toEqual(["b1", "a1", "a2"]);
  });

  it("keeps going after a failed operation", async () => {
    const lock = new KeyedLock();
    await expect(lock.run("k", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lock.run("k", async () => 42)).toBe(42);
  });
});
