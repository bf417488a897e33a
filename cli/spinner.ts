import type { CliContext } from "./command-context.js";

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** On a TTY, a spinner with the elapsed time once `task` takes more than a moment; the line is cleared after. */
export async function withSpinner<T>(
  ctx: CliContext,
  enabled: boolean,
  label: string,
  task: () => Promise<T>,
): Promise<T> {
  if (!enabled || !ctx.isTty) return task();
  const started = Date.now();
  let frame = 0;
  let shown = false;
  const timer = setInterval(() => {
    if (Date.now() - started < 300) return;
    shown = true;
    ctx.stderr(`\r${SPINNER[frame++ % SPINNER.length]} ${label} ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }, 100);
  try {
    return await task();
  } finally {
    clearInterval(timer);
    if (shown) ctx.stderr("\r\u001b[2K");
  }
}
