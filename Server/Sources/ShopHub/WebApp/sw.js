// The service worker (docs/APP.md, "The web app", offline): the app opens without a network —
// after a reload, after the phone was restarted — with the last views it saw.
// The hub writes the version and the list of the app's files in here when it
// reads this file (%APP_VERSION% and %APP_FILES%).
const version = '%APP_VERSION%';
const files = %APP_FILES%;
const shell = `shell-${version}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(shell).then((cache) => cache.addAll(['/', ...files])).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  // An older app's files go, and views kept by an older app for no session in particular; each session's views stay.
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => (key.startsWith('shell-') && key !== shell) || key === 'views').map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Only this hub's reads: a push or a pull goes to the network as it is (the outbox keeps what could not go).
  if (url.origin !== self.location.origin || request.method !== 'GET') return;
  if (url.pathname === '/') {
    event.respondWith(networkFirst(request, shell, '/', isPage));
  } else if (url.pathname.startsWith(`/app/${version}/`) || url.pathname === '/manifest.webmanifest') {
    event.respondWith(caches.match(request).then((kept) => kept ?? fetch(request)));
  } else if (/^\/v1\/households\/[^/]+\/views\//.test(url.pathname) && !url.pathname.endsWith('/views/suggestions')) {
    // Suggestions are asked at every keystroke: not kept (offline, the app looks names up in the items it last saw).
    event.respondWith(sessionViews(request, url.pathname.split('/')[3]));
  }
});

/**
 * A household's views are kept for the session that asked for them, and given back only to it: the cache is
 * named by the household and a digest of the request's token (the device's). A request without the app's
 * token goes to the network as it is and never gets what was kept. A refused token (401) or a device no
 * longer in the household (403) deletes that session's views; the app deletes every session's at sign-out.
 */
async function sessionViews(request, household) {
  const token = request.headers.get('Authorization');
  if (!token) return fetch(request);
  // Asked for the hub's answer now (the app deciding what a refusal means): the network or a failure.
  const fresh = request.headers.get('Cache-Control') === 'no-cache';
  // crypto.subtle is always there: a service worker runs only in a secure context (HTTPS, localhost).
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  const name = `views-${household}-${Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('')}`;
  const answered = (answer) => {
    if (answer.status === 401 || answer.status === 403) caches.delete(name).catch(() => {});
    return answer;
  };
  if (fresh) return fetch(request).then(answered);
  return networkFirst(request, name, request, (answer) => answer.ok, answered, { settled: true });
}

const isPage = (answer) => (answer.headers.get('Content-Type') ?? '').startsWith('text/html');
/** How long a slow network is waited for before the kept answer is shown (a weak signal in a shop). */
const patience = 4000;

/** The network's answer (kept for next time, if `keep` says so), or, without a network, the last one kept. */
async function networkFirst(request, cacheName, key = request, keep = (answer) => answer.ok, answered = (answer) => answer, { settled = false } = {}) {
  const fetched = fetch(request).then(async (answer) => {
    answered(answer);
    if (answer.ok && keep(answer)) {
      const copy = answer.clone();
      // Kept after it was answered: the page does not wait for the disk — unless `settled`: a session's views
      // are kept before the page has them, so that once its requests are answered nothing more is written
      // (a sign-out deletes them after that).
      const kept = caches.open(cacheName).then((cache) => cache.put(key, copy)).catch(() => {});
      if (settled) await kept;
    }
    return answer;
  });
  // Looked up without opening (so never making) the cache: one deleted meanwhile, at a sign-out, stays deleted.
  const kept = () => caches.match(key, { cacheName });
  const late = new Promise((resolve) => setTimeout(resolve, patience, null));
  try {
    const answer = await Promise.race([fetched, late.then(() => kept().then((found) => found ?? fetched))]);
    if (answer) return answer;
    return await fetched;
  } catch (error) {
    const found = await kept();
    if (found) return found;
    throw error;
  }
}
