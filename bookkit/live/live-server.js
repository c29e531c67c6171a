/* Live cells, part "server": where the kernel server is, and the questions asked of its REST API.
 *
 * The server comes from the URL's fragment, never from a built file: `make live` prints a URL ending
 * in #live=<port>&token=<token> (a server on this machine, http://127.0.0.1:<port>); a server chosen
 * by the reader (a JupyterHub user server, `make serve-kernel` on another machine) comes as
 * #server=<its URL>&token=<token>, or from the small form the bar shows when there is none. Server
 * and token move into sessionStorage (this tab only) and out of the address bar at once; the token
 * is only ever sent to that server, and to the reader's other tabs of the book that ask for it
 * (live-tabs.js). The server must accept this page's origin (appendix 2).
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
const CREDENTIALS_KEY = 'live-kernel-server'; // sessionStorage: {url, token, local} from the URL or form

/** The server at `url` (http or https, no trailing slash), or null for anything else. */
live.serverAt = function serverAt(url) {
  try {
    const parsed = new URL(url);
    return ['http:', 'https:'].includes(parsed.protocol) ? (parsed.origin + parsed.pathname).replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
};

/** Keep server and token for this tab. */
live.remember = function remember(url, token, local = false) {
  sessionStorage.setItem(CREDENTIALS_KEY, JSON.stringify({ url, token, local }));
};

/** Move a server and token in the URL's fragment into sessionStorage; true if there was one. */
live.takeCredentialsFromUrl = function takeCredentialsFromUrl() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has('token')) return false;
  const chosen = fragment.has('server') && live.serverAt(fragment.get('server'));
  const url = chosen || `http://127.0.0.1:${Number(fragment.get('live')) || 8899}`;
  live.remember(url, fragment.get('token'), !chosen);
  for (const key of ['token', 'live', 'server']) fragment.delete(key);
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

live.serverUrl = ({ url }) => url;

/** What went wrong, in the reader's words: a request that got no answer at all (the browser's own
 * "Failed to fetch", a TypeError, in its language, not the page's) says the kernel server did not answer. */
live.why = function why(error, say) {
  if (error instanceof TypeError || /Failed to fetch|NetworkError|Load failed/.test(String(error && error.message))) {
    return say('serverUnreachable');
  }
  return (error && error.message) || String(error);
};

/** A request to the server's REST API with the tab's token. */
live.api = (where, path, options = {}) => fetch(`${live.serverUrl(where)}${path}`, {
  cache: 'no-store', ...options, headers: { Authorization: `token ${where.token}` },
});

/** Why the server at `where` cannot be used (in the reader's words), or null if it can. */
live.probe = async function probe(where, say) {
  const values = { url: where.url, origin: location.origin };
  const refused = say(where.local ? 'refused' : 'refusedThere', values);
  try {
    await fetch(`${live.serverUrl(where)}/api`, { cache: 'no-store' }); // needs no token
  } catch { // nothing listens, or (the same to a page) the server does not accept this page's origin
    return say(where.local ? 'nothingAnswers' : 'nothingAnswersThere', values);
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

/** The server's model of kernel `id` ({execution_state, connections, ...}), or null if it has none
 * (asked from its list: a 404 would be a console error); rejects if the server does not answer. */
live.kernelModel = async function kernelModel(where, id) {
  const answer = await live.api(where, '/api/kernels');
  if (!answer.ok) throw new Error(`${answer.status}`);
  return (await answer.json()).find((kernel) => kernel.id === id) || null;
};

/** The form that asks for a server of the reader's choosing; `use()` connects to what it keeps. */
live.serverForm = function serverForm(say, use) {
  const field = (name, type, label) => {
    const input = live.element('input', { name, type, required: '', autocomplete: 'off', spellcheck: 'false' });
    return [input, live.element('label', {}, label, ' ', input)];
  };
  const [url, urlLabel] = field('server', 'url', say('serverUrl'));
  const [token, tokenLabel] = field('token', 'password', say('serverToken'));
  const problem = live.element('span', { class: 'live-form-problem', 'aria-live': 'polite' });
  const form = live.element('form', { class: 'live-server-form', 'aria-label': say('serverForm') },
                            live.element('p', {}, say('serverForm')), urlLabel, tokenLabel,
                            live.element('button', { type: 'submit', class: 'live-button' }, say('connect')), problem);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = live.serverAt(url.value.trim());
    problem.textContent = chosen ? '' : say('badServer', { url: url.value.trim() });
    if (!chosen) return;
    live.remember(chosen, token.value.trim());
    token.value = '';
    use();
  });
  return form;
};

/** Shut down session `id` (another page's kernel of this tab), if the server still has it. */
live.shutDownSession = async function shutDownSession(where, id) {
  const answer = await live.api(where, '/api/sessions').catch(() => null);
  if (!answer || !answer.ok || !(await answer.json()).some((session) => session.id === id)) return;
  await live.api(where, `/api/sessions/${id}`, { method: 'DELETE' }).catch(() => null);
};
})();
