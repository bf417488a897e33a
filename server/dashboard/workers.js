// The workers table: each worker with its status, task, branch, resources, network and permissions.
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { state } from "./state.js";
import { closeDetail, renderDetailHead, select } from "./worker-detail.js";

/** The run, net and env grants in one line. */
function policySummary(permissions) {
  const list = (value) => (value === true ? "any" : value === false || value.length === 0 ? "—" : value.join(", "));
  return `run ${list(permissions.run)} · net ${list(permissions.net)} · env ${list(permissions.env)}${permissions.mode === "audit" ? " · audit" : ""}`;
}

/** The worker's task in a few words: how it ended, or how validation stands while it runs. */
function taskSummary(worker) {
  if (worker.task?.status === "finished") return "finished";
  if (worker.task?.status === "failed") return "task failed";
  if (worker.validation === undefined) return "—";
  if (worker.validation.validated) return "validated";
  return worker.validation.consecutiveFailures > 0
    ? `${worker.validation.consecutiveFailures} failed validations`
    : "not validated";
}

/** Fetches the workers and redraws the table (and the selected worker's panel, or closes it if the worker is gone). */
export async function refreshWorkers() {
  const { workers } = await api("GET", "/v1/workers");
  state.workers = workers;
  const body = $("workers").querySelector("tbody");
  body.replaceChildren(
    ...workers.map((worker) =>
      el(
        "tr",
        {
          "data-id": worker.id,
          class: worker.id === state.selected ? "selected" : "",
          onclick: () => select(worker.id),
        },
        el("td", {}, el("strong", { text: worker.name }), el("div", { class: "mono muted", text: worker.id })),
        el(
          "td",
          {},
          el("span", { class: `status status-${worker.status}`, text: worker.status }),
          worker.error ? el("div", { class: "muted", text: worker.error }) : null,
        ),
        el(
          "td",
          {},
          el("span", { class: `status status-task-${worker.task?.status ?? "none"}`, text: taskSummary(worker) }),
        ),
        el(
          "td",
          { class: "mono" },
          el("div", { text: worker.repo }),
          el("div", { class: "muted", text: worker.branch }),
        ),
        el("td", { text: `${worker.resources.cpus} CPU · ${worker.resources.memoryMb} MB` }),
        el("td", { text: worker.network }),
        el("td", { class: "mono", text: policySummary(worker.permissions) }),
      ),
    ),
  );
  $("workers-empty").hidden = workers.length > 0;
  if (state.selected !== null) {
    const worker = workers.find((each) => each.id === state.selected);
    if (worker === undefined) closeDetail();
    else renderDetailHead(worker);
  }
}
