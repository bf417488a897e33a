import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clearPoolLeftovers } from "../../../../runtime/workers/worker-pool.js";
import { git } from "../git/git-fixture.js";
import { createFakeWorkers, type FakeWorkers } from "./fake-workers.js";

/** The workcell refs in the repository: ref → commit. */
const pins = (repo: string): Record<string, string> =>
  Object.fromEntries(
    git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/workcell/")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" ") as [string, string]),
  );

let fake: FakeWorkers | undefined;

afterEach(async () => {
  await fake?.pools?.close();
  await fake?.cleanUp();
  fake = undefined;
});

/** Fake workers with a repository pool of `size`, filled. */
async function filledPool(size: number): Promise<FakeWorkers & { pools: NonNullable<FakeWorkers["pools"]> }> {
  fake = await createFakeWorkers({}, { repoPoolSize: size });
  const pools = fake.pools!;
  await pools.start(fake.driver, fake.instance, fake.dataDir, new Set());
  expect(await pools.forRepo(fake.repo)?.waitReady(size, 30_000)).toBe(true);
  return { ...fake, pools };
}

describe("a repository pool's slot", () => {
  it("is prepared for the id of the worker that claims it: branch and pin named for it, so the claim changes no git state", async () => {
    const { workers, repo, pools } = await filledPool(1);
    const head = git(repo, "rev-parse", "HEAD");
    const [slotPin, ...others] = Object.keys(pins(repo));
    expect(others).toEqual([]);
    const reserved = /^refs\/workcell\/([0-9a-f]{8})\/base$/.exec(slotPin ?? "")?.[1];
    expect(reserved).toBeDefined();

    const worker = await workers.lifecycle.create({ repo });
    expect(pools.forRepo(repo)?.available).toBe(0);
    expect(worker).toMatchObject({
      id: reserved,
      name: `agent-${reserved}`,
      branch: `workcell/agent-${reserved}`,
      baseCommit: head,
      status: "running",
    });
    expect(pins(repo)).toEqual({ [`refs/workcell/${reserved}/base`]: head });
    // The branch the slot checked out is the worker's, as made: no rename in its history.
    const workspaceGit = (...args: string[]) => git(worker.workspace, "-c", `safe.directory=*`, ...args);
    expect(workspaceGit("symbolic-ref", "HEAD")).toBe(`refs/heads/${worker.branch}`);
    expect(workspaceGit("for-each-ref", "--format=%(refname)", "refs/heads/workcell/")).toBe(
      `refs/heads/${worker.branch}`,
    );
    expect(workspaceGit("reflog", "show", "--format=%gs", worker.branch)).not.toMatch(/renamed/);
    expect(await readdir(path.dirname(worker.workspace))).not.toContain("slot.json");

    // Removing the worker drops the pin it took over from the slot.
    await workers.lifecycle.remove(worker.id, { keepWorkspace: false });
    expect(pins(repo)).toEqual({});
  });

  it("gives a worker created with a name the slot's id and its own branch, renamed from the slot's", async () => {
    const { workers, repo } = await filledPool(1);
    const [slotPin] = Object.keys(pins(repo));
    const worker = await workers.lifecycle.create({ repo, name: "reviewer" });
    expect(slotPin).toBe(`refs/workcell/${worker.id}/base`);
    expect(worker.name).toBe("reviewer");
    expect(worker.branch).toBe(`workcell/reviewer-${worker.id}`);
    const branches = git(
      worker.workspace,
      "-c",
      "safe.directory=*",
      "for-each-ref",
      "--format=%(refname)",
      "refs/heads/workcell/",
    );
    expect(branches).toBe(`refs/heads/${worker.branch}`);
  });

  it("moves its pin and branch to the commit asked for when the repository moved on", async () => {
    const { workers, repo } = await filledPool(1);
    git(repo, "commit", "-q", "--allow-empty", "-m", "after the slot was cloned");
    const head = git(repo, "rev-parse", "HEAD");
    const worker = await workers.lifecycle.create({ repo });
    expect(worker.baseCommit).toBe(head);
    expect(pins(repo)).toEqual({ [`refs/workcell/${worker.id}/base`]: head });
    expect(git(worker.workspace, "-c", "safe.directory=*", "rev-parse", worker.branch)).toBe(head);
    expect(git(worker.workspace, "-c", "safe.directory=*", "status", "--porcelain")).toBe("");
  });

  it("drops its pin when the pool lets it go, and when a restart finds it left by a control plane that died", async () => {
    const { repo, pools, driver, instance, dataDir } = await filledPool(2);
    expect(Object.keys(pins(repo))).toHaveLength(2);
    await pools.setRepoPool(repo, 1);
    expect(Object.keys(pins(repo))).toHaveLength(1);

    // As if the control plane had been killed: its slot is still there, and so is the pin.
    await clearPoolLeftovers(driver, instance, dataDir, new Set());
    expect(pins(repo)).toEqual({});
    expect(await driver.list({})).toEqual([]);
  });
});
