/* Live cells, part "grading": "Run check" for an exercise.
 *
 * A check judges only what the reader wrote. The book's solution cells never run in the reader's
 * kernel: "Run all above" (live-above.js) runs the chapter's cells above except every exercise's
 * solution and check cells, and "Run check" first removes from the kernel each name the exercise's
 * answer must define (`defines`, from tools/live_cells.py), then runs the reader's answer, then the checks.
 * So a blank answer, a stub, or some other cell's code leaves those names undefined, and fails.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** Python that removes `names` from the kernel's globals (run silently: no output, no history). */
function forget(names) {
  return `[globals().pop(_tds_name, None) for _tds_name in ${JSON.stringify(names)}]`;
}

/** `ctx` is live.js's shared state; `connection` talks to the kernel; `cells().run` runs an editor. */
live.grading = function grading(ctx, connection, cells) {
  const { say, page } = ctx;

  /** "Run all above" a cell (live-above.js). */
  const runAllAbove = (cell) => cells().runAllAbove(cell);

  async function executeHidden(code, options = {}) {
    try {
      return await connection.execute(null, code, options);
    } catch {
      return { status: 'aborted' };
    }
  }

  /** Run the reader's answer to `label` (if any), then the exercise's checks; say so under `clicked`. */
  async function runCheck(label, clicked) {
    const exercise = page.exercises.find((e) => e.label === label) || { defines: [] };
    const name = ctx.names.get(label) || label;
    const answer = ctx.cells.find((c) => c.answerTo === label);
    const checks = ctx.cells.filter((c) => c.exercise === label && c.tags.includes('check'));
    const verdict = (text, passed = null) => {
      for (const c of [answer, ...checks]) if (c) c.verdict.hidden = true;
      clicked.verdict.hidden = false;
      clicked.verdict.className = `live-verdict ${passed === null ? '' : passed ? 'live-pass' : 'live-fail'}`;
      clicked.verdict.textContent = text;
    };
    verdict(say('checking'));
    if (!(await connection.ready())) return verdict(say('noKernel'), false);
    const forgotten = await executeHidden(forget(exercise.defines), { silent: true });
    if (forgotten.status !== 'ok') return verdict(say('noKernel'), false);
    if (answer) {
      const reply = await cells().run(answer, { quiet: true });
      if (reply.status === 'aborted') return verdict(say('noKernel'), false);
      if (reply.status === 'error') {
        return verdict(reply.ename === 'NotImplementedError' ? say('notDone', { name })
          : say('answerRaised', { name: reply.ename, value: reply.evalue }), false);
      }
    }
    for (const check of checks) {
      const reply = await cells().run(check, { quiet: true, source: check.original }); // the book's check, always
      if (reply.status === 'ok') continue;
      if (reply.status !== 'error') return verdict(say('kernelStopped'), false);
      const missing = reply.ename === 'NameError' && (/'(\w+)'/.exec(reply.evalue) || [])[1];
      if (exercise.defines.includes(missing)) return verdict(say('mustDefine', { exercise: name, name: missing }), false);
      // a name the chapter's cells above define: the chapter is not set up in this kernel, the answer is not judged
      if (missing && page.cells.some((entry) => entry.index < check.index && !entry.exercise
                                                && (entry.binds || []).includes(missing))) {
        verdict(say('checkNeedsAbove', { name: missing }), false);
        clicked.verdict.append(' ', live.button(say('runAllAbove'), () => runAllAbove(check)));
        return;
      }
      return verdict(say('fail', { name: reply.ename, value: reply.evalue }), false);
    }
    verdict(say('pass', { name }), true);
  }

  return { runAllAbove, runCheck };
};
})();
