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
 *
 * A verdict is about the code that was checked, and only that:
 *   - each request carries an id (`request`), which the server's reply names again; only the reply to
 *     the answer's latest request is shown. "Run check" while a check runs cancels that check (the page
 *     stops waiting for it and says so) and checks the code the answer holds now;
 *   - once the answer's code differs from what was checked (the reader edits it, during the check or
 *     after), the verdict no longer stands: it says the code changed and is no pass or fail;
 *   - a check that takes longer than a moment says how long the grader gives it (the server's own
 *     limit, GET <server>/mlx-autodiff/check) and offers "Cancel check".
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const SAY_LIMIT_AFTER_MS = 2000; // a check still running after this long says how long it may take

/** `ctx` is live.js's shared state. */
live.grading = function grading(ctx) {
  const { say, page } = ctx;
  let requests = 0; // ids of this page's check requests
  let limits = null; // the grader's time limits, {timeout_s}, once the server said them

  /** The answer cell of exercise `label`. */
  const answerOf = (label) => ctx.cells.find((c) => c.answerTo === label);

  /** The verdict line under `cell`: `text`, a pass (true), a fail (false) or neither (null). */
  function show(cell, text, passed = null, code = '', ...more) {
    cell.judged = null; // set again by a verdict of the grader's
    cell.verdict.hidden = false;
    cell.verdict.className = `live-verdict ${passed === null ? '' : passed ? 'live-pass' : 'live-fail'}`;
    cell.verdict.dataset.code = code;
    cell.verdict.replaceChildren(text, ...more);
  }

  /** The grader's time limits, asked once per page (null if the server does not say). */
  async function graderLimits(where) {
    if (limits) return limits;
    try {
      const answer = await live.api(where, '/mlx-autodiff/check');
      if (answer.ok) limits = await answer.json();
    } catch { /* said by the check itself */ }
    return limits;
  }

  /** Stop waiting for `cell`'s running check (if any); `why`: what the verdict line says then. */
  function cancel(cell, why) {
    const running = cell.checking;
    if (!running) return;
    cell.checking = null;
    clearTimeout(running.timer);
    running.abort.abort();
    if (why) show(cell, why);
  }

  /** Grade the reader's answer to `label` with the book's checks; say the verdict under its answer cell. */
  async function runCheck(label) {
    const name = ctx.names.get(label) || label;
    const cell = answerOf(label);
    if (!cell) return;
    const cancelled = Boolean(cell.checking);
    cancel(cell, null); // a second click checks the code the answer holds now
    const source = cell.editor.getValue();
    const request = { id: ++requests, source, abort: new AbortController(), timer: null };
    cell.checking = request;
    const latest = () => cell.checking === request;
    show(cell, say(cancelled ? 'checkingAgain' : 'checking'));
    const where = live.credentials();
    if (!where) {
      cell.checking = null;
      return show(cell, say('noGrader', { url: '' }), false);
    }
    request.timer = setTimeout(async () => {
      const known = await graderLimits(where);
      if (!latest()) return;
      const limit = known && Number.isFinite(known.timeout_s)
        ? say('checkingLimit', { s: known.timeout_s }) : say('checkingLong');
      show(cell, `${say('checking')} ${limit} `, null, '',
           live.button(say('cancelCheck'), () => { cancel(cell, say('checkCancelled')); cell.editor.focus(); }));
    }, SAY_LIMIT_AFTER_MS);
    let reply;
    try {
      const response = await live.api(where, '/mlx-autodiff/check', {
        method: 'POST',
        signal: request.abort.signal,
        body: JSON.stringify({ path: page.path, label, answer: source, request: String(request.id),
                               language: live.pageLanguage() }),
      });
      if (response.status === 404) reply = { missing: true };
      else if (!response.ok) reply = { failed: say('httpError', { status: response.status, text: response.statusText }) };
      else reply = await response.json();
    } catch (error) {
      if (error && error.name === 'AbortError') return; // cancelled: the line says so already
      reply = { failed: say('serverUnreachable') };
    }
    if (!latest() || (reply.request !== undefined && reply.request !== String(request.id))) return;
    cancel(cell, null);
    // not checked: neither a pass nor a fail (styled as neither, as an outdated or cancelled check)
    if (reply.missing) return show(cell, say('noGrader', { url: live.serverUrl(where) }), null, 'not_checked');
    if (reply.failed) return show(cell, say('notGraded', { why: reply.failed }), null, 'not_checked');
    if (cell.editor.getValue() !== source) return outdated(cell);
    if (reply.passed) show(cell, say('pass', { name }), true, reply.code);
    else if (reply.code === 'not_done') show(cell, say('notDone', { name }), false, reply.code);
    else show(cell, say('fail', { reason: reply.reason }), false, reply.code);
    cell.judged = source; // the code this verdict is about
  }

  /** The answer's code is no longer what was checked: its verdict no longer stands. */
  function outdated(cell) {
    show(cell, say('checkOutdated'), null, 'outdated');
  }

  /** The answer cell's code changed: a verdict (or a running check) of other code says so. */
  function answerChanged(cell) {
    if (cell.judged == null || cell.verdict.hidden || cell.checking) return;
    if (cell.editor.getValue() !== cell.judged) outdated(cell);
  }

  return { runCheck, answerChanged, cancel };
};
})();
