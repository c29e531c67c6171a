/* Live cells, part "grading": "Run check" for an exercise.
 *
 * "Run check" sends the reader's answer, and nothing else, to the Jupyter server's grader
 * (POST <server>/mlx-autodiff/check: bookkit/workbook/server.py), which grades it as
 * `mlx-autodiff-exercises check` does: the chapter's set-up, the answer and the book's checks in a
 * grading process of its own. So neither the reader's kernel (what ran there, or whether it runs at
 * all) nor an edited check cell on the page reaches the verdict, which comes back in the page's
 * language; its `code` ("failed:same_ids", "refused", ...) is kept on the verdict as data-code.
 * "Run all above" (live-above.js) runs the chapter's cells above except every exercise's solution and
 * check cells: the book's solutions never run in the reader's kernel.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** `ctx` is live.js's shared state. */
live.grading = function grading(ctx) {
  const { say, page } = ctx;

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

  return { runCheck };
};
})();
