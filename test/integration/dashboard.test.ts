import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "./helpers/test-repo.js";

// Debian's chromium package, never a downloaded browser (scripts/ensure-chromium.sh installs it).
const CHROMIUM = process.env.WORKCELL_CHROMIUM ?? "/usr/bin/chromium";
const SCREENSHOTS = path.resolve("test-results", "dashboard");

let test: TestPlane;
let browser: Browser;
let page: Page;
let repo: string;
let worker: ApiWorker;
let mcp: Client;
const spawned: string[] = [];

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  try {
    await access(CHROMIUM);
  } catch {
    throw new Error(
      `No Chromium at ${CHROMIUM}. Install Debian's package with 'sudo scripts/ensure-chromium.sh' (or set WORKCELL_CHROMIUM to its path).`,
    );
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-dashboard-"));
  // Root in CI: Chromium's own sandbox needs an unprivileged user, so it is turned off here.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(15_000);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await browser?.close();
  if (test) await stopTestPlane(test);
  await removeContainersOf(spawned);
});

describe("the dashboard in headless Chromium", () => {
  it("asks for the token, refuses a wrong one and signs in with the right one", async () => {
    await page.goto(test.plane.url);
    await page.locator("#token").waitFor({ state: "visible" });
    // Nothing of the plane shows before the sign-in: not even an empty worker list.
    expect(await page.locator("#app").isVisible()).toBe(false);
    expect(await page.locator("#workers").isVisible()).toBe(false);
    await page.locator("#token").fill("not-the-right-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.locator("#login-error").textContent()).toMatch(/not this control plane's token/);
    await screenshot("1-sign-in");
    await page.locator("#token").fill(TEST_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("#workers-empty").waitFor({ state: "visible" });
    expect(await page.locator("#login").isHidden()).toBe(true);
    // The app uses the page's width (1400 px here), less its padding.
    expect((await page.locator("main#app").boundingBox())?.width).toBeGreaterThan(1350);
  });

  it("shows a worker as soon as it is spawned, with its branch, resources and permissions", async () => {
    worker = await spawnOn(test, repo, {
      name: "dash",
      approvals: { tools: ["write_file"] },
      resources: { memoryMb: 1024 },
    });
    spawned.push(worker.id);
    const row = page.locator(`#workers tr[data-id="${worker.id}"]`);
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain(worker.branch);
    expect(text).toContain(repo);
    expect(await row.locator("td").nth(2).textContent()).toBe("—");
    expect(text).toContain("running");
    expect(text).toContain("1024 MB");
    expect(text).toContain("net —");
    await row.click();
    await page.locator("#events li[data-type='created']").waitFor();
  });

  it("shows a tool call live, with its duration", async () => {
    ({ client: mcp } = await test.connect(worker.mcpUrl));
    await mcp.callTool({ name: "read_file", arguments: { path: "src/math.ts" } });
    const call = page.locator("#events li[data-tool='read_file']").first();
    await call.waitFor();
    expect(await call.locator(".duration").textContent()).toMatch(/^\d+ ms$/);
    expect(await call.locator(".what").textContent()).toContain("src/math.ts");
    await screenshot("2-worker-events");
  });

  it("approves a pending approval by clicking, and the agent's waiting call completes", async () => {
    let settled = false;
    const call = mcp
      .callTool({
        name: "write_file",
        arguments: { path: "src/answer.ts", content: "export const answer = 42; // the answer\n" },
      })
      .finally(() => {
        settled = true;
      });
    const item = page.locator("#approvals li").first();
    await item.waitFor();
    expect(await item.textContent()).toContain("write_file");
    expect(await page.locator("#approvals-count").textContent()).toBe("1");
    expect(settled).toBe(false);
    await screenshot("3-approval-pending");
    await item.getByRole("button", { name: "Approve" }).click();
    expect(textOf(await call)).toMatch(/^Wrote \d+ bytes to src\/answer\.ts/);
    expect(await readFile(path.join(worker.workspace, "src", "answer.ts"), "utf8")).toBe(
      "export const answer = 42; // the answer\n",
    );
    await page.locator("#approvals-empty").waitFor({ state: "visible" });
  });

  it("edits a call's input before it runs", async () => {
    const call = mcp.callTool({ name: "write_file", arguments: { path: "notes.txt", content: "draft" } });
    const item = page.locator("#approvals li").first();
    await item.waitFor();
    await item.getByRole("button", { name: "Edit" }).click();
    await item.locator("textarea").fill(JSON.stringify({ path: "notes.txt", content: "reviewed" }));
    await item.getByRole("button", { name: "Send edited input" }).click();
    expect(textOf(await call)).toMatch(/^Wrote 8 bytes to notes\.txt/);
    expect(await readFile(path.join(worker.workspace, "notes.txt"), "utf8")).toBe("reviewed");
  });

  it("shows the diff with diff and syntax colouring", async () => {
    await page.getByRole("tab", { name: "Diff" }).click();
    const added = page.locator(".diff .line.add", { hasText: "answer = 42" });
    await added.waitFor();
    expect(await added.locator(".tok-kw").first().textContent()).toBe("export");
    expect(await added.locator(".tok-num").first().textContent()).toBe("42");
    expect(await added.locator(".tok-com").first().textContent()).toBe("// the answer");
    expect(await page.locator(".diff .file", { hasText: "src/answer.ts" }).count()).toBe(1);
    await screenshot("4-diff");
  });

  it("renders agent-written text as text, never as markup", async () => {
    const hostile = "<img src=x onerror=\"document.title='pwned'\">";
    await writeFile(path.join(worker.workspace, "<b>x.md"), `${hostile}\n`);
    await page.getByRole("tab", { name: "Events" }).click();
    await page.getByRole("tab", { name: "Diff" }).click();
    await page.locator(".diff .file", { hasText: "<b>x.md" }).waitFor();
    expect(await page.locator(".diff .line.add", { hasText: hostile }).count()).toBe(1);
    expect(await page.locator(".diff img, .diff b").count()).toBe(0);
    expect(await page.title()).toBe("workcell");
  });

  it("exports the branch and removes the worker with one click each", async () => {
    await test.api("POST", `/v1/workers/${worker.id}/exec`, {
      command: "git add -A && git commit -qm 'from the dashboard test'",
    });
    await page.getByRole("button", { name: "Export branch" }).click();
    // An export runs git in the sandbox and verifies a bundle on the host: seconds under gVisor on a busy machine.
    await expect
      .poll(() => page.locator("#detail-message").textContent(), { timeout: 30_000 })
      .toMatch(new RegExp(`Exported [0-9a-f]{12} to branch ${worker.branch.replace("/", "\\/")}`));
    expect(git(repo, "show", `${worker.branch}:notes.txt`)).toBe("reviewed");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Remove" }).click();
    await page.locator(`#workers tr[data-id="${worker.id}"]`).waitFor({ state: "detached" });
    expect((await test.api("GET", `/v1/workers/${worker.id}`)).status).toBe(404);
    await screenshot("5-after-remove");
  });
});

describe("the API reference at /docs", () => {
  it("renders the descriptions' Markdown as elements, and their text only as text", async () => {
    await page.goto(`${test.plane.url}/docs`);
    const events = page.locator("details#streamEvents");
    await events.waitFor();
    await events.locator("summary").click();
    // "Each message has `id` = seq, `event` = type and `data` = the event as JSON."
    expect(await events.locator(".body h4 code").allTextContents()).toEqual(["id", "event", "data"]);
    expect(await events.locator(".body h4").first().textContent()).not.toContain("`");
    await screenshot("6-docs");
  });
});
