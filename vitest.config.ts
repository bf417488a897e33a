import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Two cores and a real Docker engine: one test file at a time keeps timings honest.
    fileParallelism: false,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/integration/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
