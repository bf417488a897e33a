// The workcell dashboard: plain DOM, no framework, no build step. Everything a worker
// controls (file names, diffs, tool arguments, results) is agent-written and therefore
// untrusted: it only ever reaches the page through textContent, never as HTML.

const TOKEN_KEY = "workcell.token";
const LIFECYCLE = new Set([
  "created",
  "started",
  "stopped",
  "stopped_by_limit",
  "removed",
  "status_changed",
  "permissions_changed",
  "model_changed",
]);
const $ = (id) => document.getElementById(id);

const state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  workers: [],
  selected: null,
  tab: "events",
  lastSeq: 0,
  stream: null,
};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${state.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const data = text === "" ? undefined : JSON.parse(text);
  if (!response.ok) {
    if (response.status === 401) signOut("The token was refused; sign in again.");
    throw new ApiError(response.status, data?.error?.code, data?.error?.message ?? `HTTP ${response.status}`);
  }
  return data;
}

// ---- sign-in ----------------------------------------------------------------------------

function showLogin(message = "") {
  $("app").hidden = true;
  $("login").hidden = false;
  $("sign-out").hidden = true;
  $("login-error").textContent = message;
  $("connection").textContent = "";
  $("token").focus();
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = null;
  state.stream?.abort();
  state.stream = null;
  showLogin(message);
}

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
  startStream();
}

// ---- workers ----------------------------------------------------------------------------

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

async function refreshWorkers() {
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

function renderDetailHead(worker) {
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

async function select(id) {
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

function closeDetail() {
  state.selected = null;
  $("detail").hidden = true;
}

// ---- events -----------------------------------------------------------------------------

function describe(event) {
  if (event.type === "tool_call")
    return `${event.tool}(${JSON.stringify(event.args ?? {})
      .slice(1, -1)
      .slice(0, 160)}) → ${(event.result ?? "").split("\n")[0].slice(0, 200)}`;
  if (event.type === "permission_denied")
    return `${event.kind ?? ""} ${event.target ?? ""} refused${event.tool ? ` in ${event.tool}` : ""}`;
  if (event.type === "approval_requested") return `${event.tool}: ${event.description ?? ""}`;
  if (event.type === "approval_decided")
    return `${event.decision ?? event.status ?? ""}${event.reason ? `: ${event.reason}` : ""}`;
  const { seq, ts, workerId, type, ...rest } = event;
  return Object.keys(rest).length === 0 ? "" : JSON.stringify(rest).slice(0, 240);
}

function appendEvent(event) {
  const list = $("events");
  const kind = event.isError
    ? "error"
    : event.type === "permission_denied"
      ? "refused"
      : LIFECYCLE.has(event.type)
        ? "lifecycle"
        : "";
  const item = el(
    "li",
    {
      class: kind,
      "data-seq": String(event.seq),
      "data-type": event.type,
      ...(event.tool ? { "data-tool": event.tool } : {}),
    },
    el("span", { class: "time", text: new Date(event.ts).toLocaleTimeString() }),
    el("span", { class: "type", text: event.type === "tool_call" ? event.tool : event.type.replaceAll("_", " ") }),
    el("span", { class: "what mono", text: describe(event), title: describe(event) }),
    el("span", { class: "duration", text: event.durationMs === undefined ? "" : `${Math.round(event.durationMs)} ms` }),
  );
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  list.append(item);
  if (atBottom) list.scrollTop = list.scrollHeight;
}

/** One resumable stream of every event (fetch, because EventSource cannot send the token). */
async function startStream() {
  state.stream?.abort();
  const controller = new AbortController();
  state.stream = controller;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch(`/v1/events?after=${state.lastSeq}`, {
        headers: { authorization: `Bearer ${state.token}` },
        signal: controller.signal,
      });
      if (response.status === 401) return signOut("The token was refused; sign in again.");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trimStart())
            .join("\n");
          if (data !== "") onEvent(JSON.parse(data));
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
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

function report(error) {
  $("detail-message").textContent = error.message;
}

// ---- approvals --------------------------------------------------------------------------

async function refreshApprovals() {
  const { approvals } = await api("GET", "/v1/approvals?status=pending");
  $("approvals-count").textContent = String(approvals.length);
  $("approvals-count").classList.toggle("hot", approvals.length > 0);
  $("approvals-empty").hidden = approvals.length > 0;
  const list = $("approvals");
  const open = new Set([...list.querySelectorAll("li.editing")].map((item) => item.dataset.id));
  list.replaceChildren(...approvals.map((approval) => renderApproval(approval, open.has(approval.id))));
}

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

// ---- diff -------------------------------------------------------------------------------

const KEYWORDS = {
  js: "await async break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null return static super switch this throw true try typeof undefined var void while yield interface type enum implements readonly",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield",
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false",
  rs: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
  sh: "if then else elif fi for while do done case esac function in export local return",
};
const LANGUAGE = {
  js: "js",
  mjs: "js",
  cjs: "js",
  ts: "js",
  tsx: "js",
  jsx: "js",
  mts: "js",
  py: "py",
  go: "go",
  rs: "rs",
  sh: "sh",
  bash: "sh",
};
const COMMENT = { js: "//", go: "//", rs: "//", py: "#", sh: "#" };

/** Splits one line of code into spans: strings, comments, numbers and keywords. */
function highlight(code, language) {
  if (language === undefined) return [document.createTextNode(code)];
  const keywords = new Set(KEYWORDS[language].split(" "));
  const comment = COMMENT[language].replace(/[/#]/g, (c) => `\\${c}`);
  const pattern = new RegExp(
    `(${comment}.*$)|("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?|\`[^\`]*\`?)|(\\b\\d[\\d_.xXa-fA-F]*\\b)|([A-Za-z_$][\\w$]*)`,
    "g",
  );
  const nodes = [];
  let last = 0;
  for (const match of code.matchAll(pattern)) {
    const [text, com, str, num, word] = match;
    const cls = com ? "tok-com" : str ? "tok-str" : num ? "tok-num" : word && keywords.has(word) ? "tok-kw" : null;
    if (cls === null) continue;
    if (match.index > last) nodes.push(document.createTextNode(code.slice(last, match.index)));
    nodes.push(el("span", { class: cls, text }));
    last = match.index + text.length;
  }
  if (last < code.length) nodes.push(document.createTextNode(code.slice(last)));
  return nodes;
}

async function showDiff() {
  if (state.selected === null) return;
  const diff = await api("GET", `/v1/workers/${state.selected}/diff`);
  const container = $("diff");
  const nodes = [
    el("p", {
      class: "muted",
      text:
        diff.files.length === 0
          ? `No changes since ${diff.baseCommit.slice(0, 12)}.`
          : `${diff.files.length} file(s) changed since ${diff.baseCommit.slice(0, 12)}${diff.truncated ? " (patch truncated)" : ""}`,
    }),
  ];
  let language;
  for (const line of diff.patch.split("\n")) {
    if (line.startsWith("diff --git ")) {
      const file = line.replace(/^diff --git a\/.* b\//, "");
      language = LANGUAGE[file.split(".").pop()];
      const stats = diff.files.find((each) => each.path === file);
      nodes.push(
        el("div", {
          class: "file",
          text: `${file}${stats ? `  (${stats.status}, +${stats.additions} −${stats.deletions})` : ""}`,
        }),
      );
    } else if (/^(index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode)/.test(line)) {
      continue;
    } else if (line.startsWith("@@")) {
      nodes.push(el("div", { class: "line hunk", text: line }));
    } else if (line !== "" || nodes.length > 0) {
      const sign = line[0] ?? " ";
      const cls = sign === "+" ? "line add" : sign === "-" ? "line del" : "line";
      nodes.push(el("div", { class: cls }, sign, ...highlight(line.slice(1), language)));
    }
  }
  container.replaceChildren(...nodes);
}

function setTab(tab) {
  state.tab = tab;
  $("tab-events").setAttribute("aria-selected", String(tab === "events"));
  $("tab-diff").setAttribute("aria-selected", String(tab === "diff"));
  $("events").hidden = tab !== "events";
  $("diff").hidden = tab !== "diff";
  if (tab === "diff") showDiff().catch(report);
}

// ---- actions ----------------------------------------------------------------------------

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
