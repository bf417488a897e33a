// The approval queue: each pending call with what it would do, and the buttons that decide it
// (approve, reject with a reason, edit the input of a tool call, allow a permission for the worker).
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { state } from "./state.js";

/** Fetches the pending approvals and redraws the queue, keeping open the editors that were open. */
export async function refreshApprovals() {
  const { approvals } = await api("GET", "/v1/approvals?status=pending");
  $("approvals-count").textContent = String(approvals.length);
  $("approvals-count").classList.toggle("hot", approvals.length > 0);
  $("approvals-empty").hidden = approvals.length > 0;
  const list = $("approvals");
  const open = new Set([...list.querySelectorAll("li.editing")].map((item) => item.dataset.id));
  list.replaceChildren(...approvals.map((approval) => renderApproval(approval, open.has(approval.id))));
}

/** One pending approval and its buttons; a decision is sent, then the queue is fetched again. */
function renderApproval(approval, editing) {
  const worker = state.workers.find((each) => each.id === approval.workerId);
  const reason = el("input", { placeholder: "reason (optional)", "aria-label": "reason", class: "reason" });
  const editor = el("textarea", { "aria-label": "revised input", class: "editor" });
  editor.value = JSON.stringify(approval.input ?? {}, null, 2);
  const editArea = el("div", { class: "edit-area" }, editor);
  editArea.hidden = !editing;
  const item = el(
    "li",
    { "data-id": approval.id, class: editing ? "editing" : "" },
    el(
      "div",
      {},
      el("strong", {
        text:
          approval.kind === "permission"
            ? `permission: ${approval.permission?.kind} ${approval.permission?.target}`
            : approval.tool,
      }),
      " ",
      el("span", {
        class: "muted",
        text: `on ${worker?.name ?? approval.workerId} · expires ${new Date(approval.expiresAt).toLocaleTimeString()}`,
      }),
    ),
    el("div", { text: approval.description }),
    el("pre", { text: JSON.stringify(approval.input ?? {}, null, 2).slice(0, 4000) }),
    editArea,
  );
  const decide = async (decision, extra = {}) => {
    for (const button of item.querySelectorAll("button")) button.disabled = true;
    try {
      const reasonText = reason.value.trim();
      await api("POST", `/v1/approvals/${approval.id}`, {
        decision,
        ...(reasonText ? { reason: reasonText } : {}),
        ...extra,
      });
      item.remove();
      await refreshApprovals();
    } catch (error) {
      for (const button of item.querySelectorAll("button")) button.disabled = false;
      item.append(el("p", { class: "error", text: error.message }));
    }
  };
  const editButton = el("button", {
    text: editing ? "Send edited input" : "Edit",
    onclick: () => {
      if (editArea.hidden) {
        editArea.hidden = false;
        item.classList.add("editing");
        editButton.textContent = "Send edited input";
        editor.focus();
        return;
      }
      let input;
      try {
        input = JSON.parse(editor.value);
      } catch {
        item.append(el("p", { class: "error", text: "The revised input is not valid JSON." }));
        return;
      }
      decide("edit", { input });
    },
  });
  const buttons = [
    el("button", { class: "primary", text: "Approve", onclick: () => decide("approve") }),
    el("button", { class: "danger", text: "Reject", onclick: () => decide("reject") }),
  ];
  if (approval.kind === "tool") buttons.push(editButton);
  else
    buttons.push(
      el("button", { text: "Allow for this worker", onclick: () => decide("approve", { scope: "worker" }) }),
    );
  item.append(el("div", { class: "actions" }, ...buttons, reason));
  return item;
}
