// The selected worker's diff since its base, with diff and syntax colouring.
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { highlight, LANGUAGE } from "./highlight.js";
import { state } from "./state.js";

/** Fetches the selected worker's diff and shows it file by file. */
export async function showDiff() {
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
