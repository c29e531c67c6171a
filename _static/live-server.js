/* Live cells, part "server": where the kernel server is, and the questions asked of its REST API.
 *
 * The URL `make live` printed ends in #live=<port>&token=<token>. The token moves into
 * sessionStorage (this tab only) and out of the address bar at once; it is only ever sent to
 * that server.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const CREDENTIALS_KEY = 'live-kernel-server'; // sessionStorage: {port, token} from the URL

/** Move a token in the URL's fragment into sessionStorage; true if there was one. */
live.takeCredentialsFromUrl = function takeCredentialsFromUrl() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has('token')) return false;
  const port = fragment.get('live') || '8899';
  sessionStorage.setItem(CREDENTIALS_KEY, JSON.stringify({ port, token: fragment.get('token') }));
  fragment.delete('token');
  fragment.delete('live');
  const rest = fragment.toString();
  history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
  return true;
};

/** A JSON value this tab keeps in sessionStorage, or null. */
live.stored = function stored(key) {
  try {
    return JSON.parse(sessionStorage.getItem(key));
  } catch {
    return null;
  }
};

live.credentials = () => live.stored(CREDENTIALS_KEY);

live.serverUrl = ({ port }) => `http://127.0.0.1:${port}`;

/** A request to the server's REST API with the tab's token. */
live.api = (where, path, options = {}) => fetch(`${live.serverUrl(where)}${path}`, {
  cache: 'no-store', ...options, headers: { Authorization: `token ${where.token}` },
});

/** Why the server at `where` cannot be used (in the reader's words), or null if it can. */
live.probe = async function probe(where, say) {
  const refused = say('refused');
  try {
    await fetch(`${live.serverUrl(where)}/api`, { cache: 'no-store' }); // needs no token
  } catch {
    return say('nothingAnswers', { url: live.serverUrl(where) });
  }
  let answer;
  try {
    answer = await live.api(where, '/api/status');
  } catch {
    return refused; // Jupyter's 403 carries no CORS header, so the browser reports a network error
  }
  if (answer.status === 401 || answer.status === 403) return refused;
  return answer.ok ? null : say('answered', { status: answer.status, text: answer.statusText });
};

/** Whether the server still runs kernel `id` (asked from its list: a 404 would be a console error). */
live.kernelExists = async function kernelExists(where, id) {
  const answer = await live.api(where, '/api/kernels');
  return answer.ok && (await answer.json()).some((kernel) => kernel.id === id);
};

/** Shut down session `id` (another page's kernel of this tab), if the server still has it. */
live.shutDownSession = async function shutDownSession(where, id) {
  const answer = await live.api(where, '/api/sessions').catch(() => null);
  if (!answer || !answer.ok || !(await answer.json()).some((session) => session.id === id)) return;
  await live.api(where, `/api/sessions/${id}`, { method: 'DELETE' }).catch(() => null);
};
})();
