/* Live cells, part "thebe": the library behind the editors, loaded when "Run live" is clicked and
 * never before (about 3 MB: _thebe/, which `make setup` copies into the site; bookkit/live/assets.py),
 * what it needs to run offline, and when jupyterlab's kernel connection (inside thebe) is done reconnecting.
 */
(function () {
'use strict';

const live = (window.tdsLive = window.tdsLive || {});
let loaded = null;

/** Load thebe from the site's root (`root`, the page's way back to it); rejects in the reader's words. */
live.loadThebe = function loadThebe(root, say) {
  loaded = loaded || new Promise((resolve, reject) => {
    const css = live.element('link', { rel: 'stylesheet', href: `${root}_thebe/thebe.css` });
    const script = live.element('script', { src: `${root}_thebe/index.js` });
    script.onload = () => resolve();
    script.onerror = () => {
      loaded = null;
      reject(new Error(say('noThebe', { root })));
    };
    document.head.append(css, script);
  });
  return loaded;
};

/**
 * thebe's connection to the kernel server for `config`, without the token in the console. thebe-core
 * 0.5.0 logs its serverSettings, token included, with console.debug as it connects
 * (`connectToJupyter` in src/thebe/api.ts, `ThebeServer.connectToJupyterServer` in src/server.ts), both
 * before their first await: those two calls run with console.debug silenced, and nothing else does.
 */
live.connectQuietly = function connectQuietly(config) {
  const debug = console.debug;
  console.debug = () => {};
  try {
    return thebeCore.api.connectToJupyter(config);
  } finally {
    console.debug = debug;
  }
};

/* thebe-core 0.5.0 fetches require.js from a CDN before it draws any ipywidget, even the built-in ones
 * it bundles (@jupyter-widgets/base, controls, output: src/manager.ts, loadClass). Those are all this
 * book uses, so mark its loader as done: they draw offline, and nothing else is fetched. */
live.offlineWidgets = function offlineWidgets(session) {
  const loader = session.manager && session.manager._loader;
  if (loader && !loader.requested) {
    loader.requested = true;
    loader.resolveFn({ require: null, define: null });
  }
};
/** Once jupyterlab's own reconnection of `kernel` after a restart (if it started one) is over. */
live.settled = async function settled(kernel) {
  await new Promise((resolve) => { setTimeout(resolve, 0); }); // it starts it in the same turn
  if (kernel.connectionStatus !== 'connecting') return;
  await new Promise((resolve) => {
    const done = (_, state) => state !== 'connecting' && kernel.connectionStatusChanged.disconnect(done) && resolve();
    kernel.connectionStatusChanged.connect(done);
    setTimeout(resolve, 5000);
  });
};
})();
