/* Live cells, part "grading": "Run all above" a cell, and "Run check" for an exercise. */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** `ctx` is live.js's shared state; `connection` talks to the kernel; `cells().run` runs an editor. */
live.grading = function grading(ctx, connection, cells) {
  const { say, page } = ctx;

  /** Run every code cell of the chapter above `cell`, as the build did (hidden ones and solutions too). */
  async function runAllAbove(cell) {
    if (!(await connection.ready())) return;
    const byIndex = new Map(ctx.cells.filter((c) => !c.answerTo).map((c) => [c.index, c]));
    const above = page.cells.filter((entry) => entry.index < cell.index);
    cell.note.textContent = say.runningAbove(above.length);
    for (const entry of above) {
      const target = byIndex.get(entry.index);
      const reply = target ? await cells().run(target, { quiet: true }) : await executeHidden(entry.source);
      if (reply.status !== 'ok') {
        const where = target ? say.cellNumber(target.number) : say.hiddenCell;
        cell.note.textContent = reply.status === 'error' ? say.stoppedRaised(where, reply.ename, reply.evalue)
          : say.stoppedUnfinished(where);
        return;
      }
    }
    cell.note.textContent = say.ranAbove(above.length);
  }

  async function executeHidden(code) {
    try {
      return await connection.execute(null, code);
    } catch {
      return { status: 'aborted' };
    }
  }

  /** Run the reader's answer to `label` (if any), then the exercise's checks; say so under `clicked`. */
  async function runCheck(label, clicked) {
    const answer = ctx.cells.find((c) => c.answerTo === label);
    const checks = ctx.cells.filter((c) => c.exercise === label && c.tags.includes('check'));
    const verdict = (text, passed = null) => {
      for (const c of [answer, ...checks]) if (c) c.verdict.hidden = true;
      clicked.verdict.hidden = false;
      clicked.verdict.className = `live-verdict ${passed === null ? '' : passed ? 'live-pass' : 'live-fail'}`;
      clicked.verdict.textContent = text;
    };
    verdict(say.checking);
    if (answer) {
      const reply = await cells().run(answer, { quiet: true });
      if (reply.status === 'aborted') return verdict(say.noKernel, false);
      if (reply.status === 'error') {
        return verdict(reply.ename === 'NotImplementedError' ? say.notDone(ctx.names.get(label))
          : say.answerRaised(reply.ename, reply.evalue), false);
      }
    }
    for (const check of checks) {
      const reply = await cells().run(check, { quiet: true });
      if (reply.status !== 'ok') {
        return verdict(reply.status === 'error' ? say.fail(reply.ename, reply.evalue) : say.kernelStopped, false);
      }
    }
    verdict(say.pass(ctx.names.get(label)), true);
  }

  return { runAllAbove, runCheck };
};
})();
