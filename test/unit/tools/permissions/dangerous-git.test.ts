import { describe, expect, it } from "vitest";
import { dangerousGitInCommand } from "../../../../tools/permissions/dangerous-git.js";

describe("dangerousGitInCommand", () => {
  it.each([
    "git reset --hard HEAD~1",
    "git clean -fd",
    "git clean --force -x",
    "git branch -D feature",
    "git branch --delete old",
    "git checkout -- src/a.ts",
    "git checkout .",
    "git restore src/a.ts",
    "git rebase main",
    "git stash drop",
    "git stash clear",
    "git push origin main",
    "cd sub && git -C .. reset --hard",
    "echo x; git -c core.pager=cat push",
    "git update-ref -d refs/heads/x",
    "git reflog expire --all",
  ])("flags %s", (command) => {
    expect(dangerousGitInCommand(command)).toBeDefined();
  });

  it.each([
    "git status",
    "git reset",
    "git reset HEAD file",
    "git restore --staged a.ts",
    "git checkout -b new",
    "git branch",
    "git stash",
    "git stash pop",
    "git commit -m 'reset --hard'",
    "echo git push",
    "git log --all",
  ])("lets %s through", (command) => {
    expect(dangerousGitInCommand(command)).toBeUndefined();
  });

  it("reads argv too", () => {
    expect(dangerousGitInCommand(["git", "push"])).toBeDefined();
    expect(dangerousGitInCommand(["/usr/bin/git", "status"])).toBeUndefined();
  });
});
