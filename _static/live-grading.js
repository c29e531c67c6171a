/* Live cells, part "grading": "Run all above" a cell, and "Run check" for an exercise.
 *
 * "Run check" sends the reader's answer, and nothing else, to the Jupyter server's grader
 * (POST <server>/mlx-autodiff/check: mlx_autodiff/workbook/server.py), which grades it as
 * `mlx-autodiff-exercises check` does: the chapter's set-up, the answer and the book's checks in a
 * grading process of its own. So neither the reader's kernel (what ran there, or whether it runs at
 * all) nor an edited check cell on the page reaches the verdict, which comes back in the page's
 * language; its `code` ("failed:same_ids", "refused", ...) is kept on the verdict as data-code.
 * "Run all above" runs the chapter's cells above except every exercise's solution and check cells:
 * the book's solutions never run in the reader's kernel.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** `ctx` is live.js's shared state; `connection` talks to the kernel; `cells().run` runs an editor. */
live.grading = function grading(ctx, connection, cells) {
  const { say, page } = ctx;

  /** The first line of a cell's code, to name it where the page shows no cell numbers. */
  const where = (cell) => say('cellStarting', { code: cell.editor.getValue().split('\n')[0].slice(0, 60) });

  /** Run the chapter's cells above `cell`, as the build did (hidden ones too, and past the cells the book
   * shows raising), but no exercise's cells. */
  async function runAllAbove(cell) {
    if (!(await connection.ready())) return;
    const byIndex = new Map(ctx.cells.filter((c) => !c.answerTo).map((c) => [c.index, c]));
    const above = page.cells.filter((entry) => entry.index < cell.index && !entry.exercise);
    cell.note.dataset.state = 'running';
    cell.note.textContent = say.count('runningAbove', above.length);
    for (const entry of above) {
      const target = byIndex.get(entry.index);
      const reply = target ? await cells().run(target, { quiet: true }) : await executeHidden(entry.source);
      const meant = reply.status === 'error' && entry.tags.includes('raises-exception'); // the book shows it raise
      if (reply.status !== 'ok' && !meant) {
        const which = target ? where(target) : say('hiddenCell');
        cell.note.textContent = reply.status === 'error'
          ? say('stoppedRaised', { where: which, name: reply.ename, value: reply.evalue })
          : say('stoppedUnfinished', { where: which });
        cell.note.dataset.state = 'stopped';
        return;
      }
    }
    cell.hint.hidden = true;
    cell.note.textContent = say.count('ranAbove', above.length);
    cell.note.dataset.state = 'done';
  }

  async function executeHidden(code, options = {}) {
    try {
      return await connection.execute(null, code, options);
    } catch {
      return { status: 'aborted' };
    }
  }

  /** Grade the reader's answer to `label` with the book's checks; say the verdict under `clicked`. */
  async function runCheck(label, clicked) {
    const name = ctx.names.get(label) || label;
    const answer = ctx.cells.find((c) => c.answerTo === label);
    const checks = ctx.cells.filter((c) => c.exercise === label && c.tags.includes('check'));
    const verdict = (text, passed = null, code = '') => {
      for (const c of [answer, ...checks]) if (c) c.verdict.hidden = true;
      clicked.verdict.hidden = false;
      clicked.verdict.className = `live-verdict ${passed === null ? '' : passed ? 'live-pass' : 'live-fail'}`;
      clicked.verdict.dataset.code = code;
      clicked.verdict.textContent = text;
    };
    verdict(say('checking'));
    const where = live.credentials();
    if (!where || !answer) return verdict(say('noGrader', { url: where ? live.serverUrl(where) : '' }), false);
    let reply;
    try {
      const response = await live.api(where, '/mlx-autodiff/check', {
        method: 'POST',
        body: JSON.stringify({ path: page.path, label, answer: answer.editor.getValue(),
                               language: live.pageLanguage() }),
      });
      if (response.status === 404) return verdict(say('noGrader', { url: live.serverUrl(where) }), false);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      reply = await response.json();
    } catch (error) {
      return verdict(say('notGraded', { why: error.message || error }), false);
    }
    if (reply.passed) return verdict(say('pass', { name }), true, reply.code);
    if (reply.code === 'not_done') return verdict(say('notDone', { name }), false, reply.code);
    return verdict(say('fail', { reason: reply.reason }), false, reply.code);
  }

  return { runAllAbove, runCheck };
};
})();
