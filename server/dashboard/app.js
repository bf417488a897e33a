// The workcell dashboard: plain DOM, no framework, no build step. Everything a worker
// controls (file names, diffs, tool arguments, results) is agent-written and therefore
// untrusted: it only ever reaches the page through textContent, never as HTML.
// This module signs in, routes the live events to the panels, and wires the page's buttons.
import { api } from "./api.js";
import { refreshApprovals } from "./approvals.js";
import { showDiff } from "./diff-view.js";
import { $ } from "./dom.js";
import { appendEvent, LIFECYCLE } from "./event-list.js";
import { startStream } from "./event-stream.js";
import { showLogin, signOut } from "./login.js";
import { state, TOKEN_KEY } from "./state.js";
import { closeDetail, report, setTab } from "./worker-detail.js";
import { refreshWorkers } from "./workers.js";

async function signIn(token) {
  state.token = token;
  try {
    await api("GET", "/v1/workers");
  } catch (error) {
    state.token = null;
    showLogin(
      error.status === 401
        ? "That token is not this control plane's token."
        : `Cannot reach the control plane: ${error.message}`,
    );
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("login").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  $("connection").textContent = location.host;
  await Promise.all([refreshWorkers(), refreshApprovals()]);
  startStream(onEvent);
}

function onEvent(event) {
  state.lastSeq = Math.max(state.lastSeq, event.seq);
  if (event.workerId === state.selected && !$("events").querySelector(`[data-seq="${event.seq}"]`)) appendEvent(event);
  if (LIFECYCLE.has(event.type)) scheduled("workers", refreshWorkers);
  if (event.type.startsWith("approval_")) scheduled("approvals", refreshApprovals);
  if (event.workerId === state.selected && state.tab === "diff" && event.type === "tool_call")
    scheduled("diff", showDiff);
}

const timers = {};
function scheduled(name, task) {
  clearTimeout(timers[name]);
  timers[name] = setTimeout(() => task().catch(report), 150);
}

async function exportSelected() {
  const result = await api("POST", `/v1/workers/${state.selected}/export`, {});
  $("detail-message").textContent =
    `Exported ${result.commit.slice(0, 12)} to branch ${result.branch} of ${result.repo}${result.uncommittedFiles > 0 ? ` (${result.uncommittedFiles} uncommitted file(s) not included)` : ""}.`;
}

async function removeSelected() {
  const worker = state.workers.find((each) => each.id === state.selected);
  if (!confirm(`Remove ${worker.name} (${worker.id}) and its workspace? Export first to keep its commits.`)) return;
  await api("DELETE", `/v1/workers/${state.selected}`);
  closeDetail();
  await refreshWorkers();
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  signIn($("token").value.trim());
});
$("sign-out").addEventListener("click", () => signOut());
$("tab-events").addEventListener("click", () => setTab("events"));
$("tab-diff").addEventListener("click", () => setTab("diff"));
$("export-button").addEventListener("click", () => exportSelected().catch(report));
$("remove-button").addEventListener("click", () => removeSelected().catch(report));
setInterval(() => {
  if (state.token !== null && !document.hidden)
    Promise.all([refreshWorkers(), refreshApprovals()]).catch(() => undefined);
}, 5000);

if (state.token) signIn(state.token);
else showLogin();
