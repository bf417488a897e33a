// The live events of every worker over server-sent events.
import { signOut } from "./login.js";
import { state } from "./state.js";

/**
 * One resumable stream of every event (fetch, because EventSource cannot send the token):
 * each event goes to `onEvent`; a dropped connection resumes after the last one a second
 * later, until the stream is aborted or the token refused.
 */
export async function startStream(onEvent) {
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
