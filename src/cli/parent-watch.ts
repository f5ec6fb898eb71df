// A serving process started through a wrapper (`npm start`, `npx svc serve`) runs under
// `sh -c`: a SIGTERM to npm's PID reaches npm and the shell, which die, and the node process is
// left orphaned, still listening (issue 20). Ctrl+C is no problem (the terminal signals the
// whole process group); a supervisor or `kill <npm pid>` is. So a process started by npm (it
// sets npm_command) notices when its parent goes away and stops as if sent SIGTERM. Started any
// other way (`nohup svc serve &`, systemd) it keeps running when its parent goes.

const CHECK_MS = 500;

/** Calls `stop` once if the npm process this one was started through exits. */
export function stopWhenOrphaned(stop: () => void): void {
  const parent = process.ppid;
  if (process.env.npm_command === undefined || parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, CHECK_MS);
  timer.unref();
}
