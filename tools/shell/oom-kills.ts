import { readFileSync } from "node:fs";

const COUNTERS = ["/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"];

/** How many processes the container's memory limit has killed so far (cgroup v2 or v1); undefined when unknown. */
export function readOomKills(): number | undefined {
  for (const file of COUNTERS) {
    try {
      const match = /^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"));
      if (match) return Number(match[1]);
    } catch {
      // Try the other cgroup layout.
    }
  }
  return undefined;
}
