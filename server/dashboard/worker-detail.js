// The selected worker's panel: its name, branch and policy, its events or its diff, and the
// line where an action's outcome or failure is reported.
import { api } from "./api.js";
import { showDiff } from "./diff-view.js";
import { $ } from "./dom.js";
import { appendEvent } from "./event-list.js";
import { state } from "./state.js";

/** The panel's title and the worker's permissions, resources and addresses. */
export function renderDetailHead(worker) {
  $("detail-title").textContent = `${worker.name} · ${worker.branch}`;
  $("detail-policy").textContent = JSON.stringify(
    {
      permissions: worker.permissions,
      resources: worker.resources,
      image: worker.image,
      repo: worker.repo,
      mcpUrl: worker.mcpUrl,
    },
    null,
    2,
  );
}

/** Opens the panel on worker `id` with its past events (and its diff, on that tab). */
export async function select(id) {
  state.selected = id;
  for (const row of $("workers").querySelectorAll("tbody tr")) row.classList.toggle("selected", row.dataset.id === id);
  const worker = state.workers.find((each) => each.id === id);
  $("detail").hidden = false;
  $("detail-message").textContent = "";
  renderDetailHead(worker);
  $("events").replaceChildren();
  const { events } = await api("GET", `/v1/workers/${id}/events?limit=1000`);
  for (const event of events) appendEvent(event);
  if (state.tab === "diff") await showDiff();
}

/** Closes the panel. */
export function closeDetail() {
  state.selected = null;
  $("detail").hidden = true;
}

/** Switches between the events and the diff. */
export function setTab(tab) {
  state.tab = tab;
  $("tab-events").setAttribute("aria-selected", String(tab === "events"));
  $("tab-diff").setAttribute("aria-selected", String(tab === "diff"));
  $("events").hidden = tab !== "events";
  $("diff").hidden = tab !== "diff";
  if (tab === "diff") showDiff().catch(report);
}

/** Shows a failed action's message in the panel. */
export function report(error) {
  $("detail-message").textContent = error.message;
}
