/* Live cells, part "tabs": this tab among the reader's other tabs of the book, and its kernel's end.
 *
 * - A new tab (Ctrl+click, a copied link, a bookmark) has no token: the token lives in the
 *   sessionStorage of the tab that opened the URL `make live` printed. Every tab of the book
 *   listens on a BroadcastChannel of this origin (only the book's pages share it) and hands its
 *   server and token to a tab that asks (`live.askOtherTabs`), so a reader's second tab connects
 *   while another is open. The token stays in memory and sessionStorage: never in localStorage,
 *   which outlives the browser.
 * - A tab that is a copy of another (the browser's "Duplicate" copies sessionStorage) would share
 *   its kernel: on load it asks whether another tab holds the kernel it inherited, and if one does,
 *   it forgets it (`live.forgetCopiedKernel`), so it starts a kernel of its own.
 * - A closed tab's kernel is shut down within seconds (bookkit/live/server.py, POST /tds/tab): a page
 *   leaving (pagehide) says so for its tab's kernel, and the next page of the same tab (a reload,
 *   another chapter) says it is still there, which cancels the shutdown; the server also keeps a
 *   kernel that has a connection when the time is up.
 * The parts of live mode (live-*.js and live.js, in _static/) share one namespace, window.tdsLive.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const TAB_KEY = 'live-tab-kernel'; // sessionStorage: this tab's kernel, {page, path, session, kernel}
live.TAB_KEY = TAB_KEY;
const channel = 'BroadcastChannel' in window ? new BroadcastChannel('tds-live') : null;

if (channel) {
  channel.addEventListener('message', ({ data }) => {
    if (!data || typeof data !== 'object') return;
    const where = live.credentials();
    if (data.ask === 'credentials' && where) channel.postMessage({ credentials: where });
    const tab = live.stored(TAB_KEY);
    if (data.ask === 'kernel' && tab && tab.kernel === data.kernel) channel.postMessage({ holds: data.kernel });
  });
}

/** Ask the book's other open tabs for one answer `pick(message)` accepts; null after `ms`. */
function ask(question, pick, ms) {
  if (!channel) return Promise.resolve(null);
  return new Promise((resolve) => {
    const heard = ({ data }) => {
      const found = data && pick(data);
      if (found) finish(found);
    };
    const finish = (found) => {
      channel.removeEventListener('message', heard);
      clearTimeout(timer);
      resolve(found);
    };
    const timer = setTimeout(() => finish(null), ms);
    channel.addEventListener('message', heard);
    channel.postMessage(question);
  });
}

/** A server and token from another open tab of the book, kept for this tab; true if one answered. */
live.askOtherTabs = async function askOtherTabs(ms = 700) {
  const found = await ask({ ask: 'credentials' }, (data) => data.credentials, ms);
  const url = found && live.serverAt(found.url);
  if (!url || typeof found.token !== 'string') return false;
  live.remember(url, found.token, Boolean(found.local));
  return true;
};

/** Forget the tab's kernel if another open tab holds it (this tab is a copy of that one). */
live.forgetCopiedKernel = async function forgetCopiedKernel() {
  const tab = live.stored(TAB_KEY);
  if (!tab) return false;
  const held = await ask({ ask: 'kernel', kernel: tab.kernel }, (data) => data.holds === tab.kernel, 400);
  if (held) sessionStorage.removeItem(TAB_KEY);
  return Boolean(held);
};

/** Tell the kernel server this tab's kernel is still wanted (`keep`) or that the page leaves. */
function tellServer(keep) {
  const tab = live.stored(TAB_KEY);
  const where = live.credentials();
  if (!tab || !where || !navigator.sendBeacon) return;
  // a beacon carries no header: the token goes in the query, as thebe's websocket URL carries it
  const url = `${live.serverUrl(where)}/tds/tab?token=${encodeURIComponent(where.token)}`;
  navigator.sendBeacon(url, JSON.stringify({ kernel: tab.kernel, keep }));
}

// the other parts load in any order (Jupyter Book adds _static/'s scripts as it finds them): wait for them,
// which is still long before the server's grace time is up
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => tellServer(true));
else tellServer(true);
addEventListener('pagehide', () => tellServer(false));
addEventListener('pageshow', (event) => { if (event.persisted) tellServer(true); });
})();
