/* Live cells, part "runs": code sent to the tab's kernel, the queue it waits in, and how long it ran.
 *
 * The kernel runs one request at a time; the others wait in its queue. A request's run begins when
 * the kernel says it is busy with it (its `status` on IOPub, with the request as parent), and its
 * time is the kernel's own, from that message's date to its reply's: what a cell took, never the
 * wait before it nor the trip to the page. A run that cannot end any more (the kernel restarted,
 * died, or the server went) is ended here with the reason, so no note keeps saying "running".
 * Whether the page's set-up cells ran in this kernel is kept with the tab's kernel (setUp).
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});

/** Milliseconds between two of Jupyter's ISO dates (which carry microseconds), or null. */
function between(start, end) {
  const ms = (date) => (typeof date === 'string' ? Date.parse(date.replace(/(\.\d{3})\d+/, '$1')) : NaN);
  const took = ms(end) - ms(start);
  return Number.isFinite(took) && took >= 0 ? Math.round(took) : null;
}

/** The runs of `conn`'s kernel (live-connection.js); `ctx` is live.js's shared state. */
live.runs = function runs(ctx, conn) {
  const { say, ui } = ctx;
  const queue = []; // [{id, cell, began, beganAt, end}] in the order sent: the kernel's order

  /** An IOPub message of the kernel: marks when a request of this page began. */
  function heard(message) {
    const state = message.header.msg_type === 'status' && message.content.execution_state;
    if (state !== 'busy') return;
    const run = queue.find((entry) => entry.id === message.parent_header.msg_id);
    if (run && !run.began) {
      Object.assign(run, { began: message.header.date, beganAt: performance.now() });
      if (run.onStart) run.onStart();
    }
  }

  /** The run the kernel works on, if it is one of this page's: {cell} (cell null: a hidden one). The
   * kernel takes requests in order, so it is the first one sent and not answered: its "busy" may never
   * have come (a process that ends at once, os._exit, takes its last messages with it). */
  const current = () => queue[0] || null;

  /** End every run of this page: `why` says what ended them ("restarted", "died", "server", ...). */
  function stopAll(why) {
    queue.splice(0).forEach((run, at) => run.end({ status: 'aborted', lost: true, why, began: Boolean(run.began) || at === 0 }));
    showIdle();
  }

  function showIdle() {
    ui.interrupt.hidden = !queue.length;
    if (queue.length) ctx.show('busy', queue.length > 1 ? say('queued', { n: queue.length }) : say('running'));
    else if (!ctx.lost && ctx.readyFor && !conn.restarted) ctx.show('ready', say('waiting'));
  }

  /**
   * Send `code` to the kernel; `cell` (if any) shows what it sends back. `silent`: no output, no
   * history (the kernel's In list, which checks may read, holds only what the reader ran).
   * `onStart()` is called when the kernel begins it. Resolves with the reply's content and `ms`,
   * the kernel's own time; or {status: 'aborted', lost: true, why} if the run could not end.
   */
  function execute(cell, code, { silent = false, onStart = null } = {}) {
    const future = ctx.session.kernel.requestExecute({ code, stop_on_error: true, silent, store_history: !silent });
    future.done.catch(() => {}); // a kernel that went leaves it unanswered or cancelled: `stopAll` says so
    if (cell) cell.thebe.area.future = future; // thebe-core's OutputArea draws every message of the request
    conn.restarted = false;
    return new Promise((resolve) => {
      const run = { id: future.msg.header.msg_id, cell, onStart, end: resolve };
      queue.push(run);
      showIdle();
      future.done.then((reply) => {
        const at = queue.indexOf(run);
        if (at < 0) return; // already ended by stopAll
        queue.splice(at, 1);
        const ms = between(run.began, reply.header.date) ?? Math.round(performance.now() - (run.beganAt ?? 0));
        resolve({ ...reply.content, ms });
        showIdle();
      }, () => {});
    });
  }

  /** Whether the page's set-up cells ran in the tab's kernel; `setUp(true)` records that they did. */
  function setUp(done) {
    const tab = live.stored(live.TAB_KEY);
    if (done === undefined) return Boolean(tab && ctx.session && tab.kernel === ctx.session.kernel.id && tab.setUp);
    if (tab) sessionStorage.setItem(live.TAB_KEY, JSON.stringify({ ...tab, setUp: done }));
    return done;
  }
  conn.forgetSetUp = () => setUp(false);

  return { execute, heard, current, stopAll, setUp, pending: () => queue.length };
};
})();
