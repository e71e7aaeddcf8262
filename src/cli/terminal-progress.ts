/**
 * One line of progress on a terminal's stderr, rewritten in place ("listing
 * pods: 12,500"), at most every 100 ms, and erased when the work is done.
 * Off the terminal (a pipe, a pod log) it prints nothing: logs say it there,
 * and stdout, which carries the command's output, is never touched.
 */
export interface Progress {
  update(text: string): void;
  /** Erases the line (the next output starts on a clean line). */
  done(): void;
}

export const NO_PROGRESS: Progress = { update: () => {}, done: () => {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr, minIntervalMs = 100): Progress {
  if (!stream.isTTY) return NO_PROGRESS;
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < minIntervalMs) return;
      last = now;
      const width = Math.max(10, (stream.columns || 80) - 1);
      stream.write(`\r\u001b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\u001b[2K');
      shown = false;
      last = Number.NEGATIVE_INFINITY;
    },
  };
}
